// A tfg graph as a readable .tfg script (`tfg import model.pb -o model.tfg`):
// one statement per node, in graph order, keeping node names and devices;
// constants over a size limit are written beside the script as .npy files
// and loaded with load_npy.
#pragma once

#include <cstdint>
#include <string>

#include "ops/core/graph.h"
#include "ops/core/status.h"

namespace tfg::interop {

struct ScriptOptions {
  int64_t inline_limit = 64;  // constants with more elements go to .npy files
  std::string header;         // comment lines at the top (where it came from)
};

// Writes `script_path`, and its constants to <script stem>_data/*.npy.
Status WriteGraphScript(const Graph& graph, const std::string& script_path, const ScriptOptions& opts);

}  // namespace tfg::interop
