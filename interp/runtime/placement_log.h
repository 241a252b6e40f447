// --log-placement (TensorFlow's log_device_placement): when a run's plan
// is built, one line per node it runs, saying where:
//   placement: layer1/matmul (matmul) on /job:localhost/replica:0/task:0/device:cpu:1 at train.tfg:12:7
// in node id order (the order the script built them). Transfers that
// partitioning adds between devices (_send, _recv) are not listed.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// The lines for `placed` (node, the full name of its device), sorted by
// node id; each ends in a newline.
std::string FormatPlacement(std::vector<std::pair<const Node*, std::string>> placed);

}  // namespace tfg
