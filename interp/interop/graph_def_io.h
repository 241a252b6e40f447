// Reading and writing GraphDef files: binary protobuf (.pb) or text format
// (.pbtxt), told apart by content rather than by the file's name.
#pragma once

#include <string>
#include <string_view>

#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

// Parses `bytes` as a GraphDef; `what` (the file's path) prefixes errors.
Result<tf::GraphDef> ParseGraphDef(std::string_view bytes, const std::string& what);
Result<tf::GraphDef> ReadGraphDefFile(const std::string& path);
// Binary unless the path ends in .pbtxt or .pbtx; replaces the file atomically.
Status WriteGraphDefFile(const std::string& path, const tf::GraphDef& def);

}  // namespace tfg::interop
