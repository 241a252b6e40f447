// Elementwise fusion of a graph already placed on several devices (a GPU
// among them): groups form on each device on its own, CPU groups as in a
// CPU-only run and GPU groups as kernels NVRTC compiles when the plan is
// made (ops/math/fused/fused_elementwise_cuda.cc). Before placement the
// pass cannot know which device takes a node, so there it only fuses when
// every device is the host's (session.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "interp/runtime/device_set.h"
#include "interp/runtime/graph_optimizer.h"

namespace tfg {

// Rewrites `opt` (whose nodes have their assigned devices) with the fused
// groups, and returns each node's device index in `devices`, as
// PlaceGraph does. Nodes of another task are never fused. `cpu` runs what
// the pass might fold (nothing: folding is off).
Result<std::vector<int32_t>> FusePlacedGraph(OptimizedGraph &opt, const DeviceSet &devices, bool check_numerics,
                                             Device *cpu);

}  // namespace tfg
