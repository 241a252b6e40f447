// Options of `tfg graph FILE --dot` beyond the plain drawing that
// interpreter.h's GraphToDot gives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

struct DotOptions {
  // Name scopes nested deeper than this many levels are drawn as one box
  // each (0: only top-level nodes and scopes); -1 draws every node.
  int depth = -1;
};

std::string GraphToDot(const Graph& graph, const DotOptions& options);

}  // namespace tfg
