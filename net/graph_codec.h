// A partition's Graph to and from its wire form (net/protocol.h GraphDef).
// Encoding keeps each node's name, op, attrs, inputs (by index), control
// inputs, devices, inferred output shapes and source span with the text of
// its line, so a worker's errors point at the user's script line.
// Decoding trusts nothing: it rebuilds the graph through Graph::AddNode,
// which checks the op exists, the attrs' types and the inputs' dtypes
// against the signature and runs the shape function; input indices are
// checked against the nodes before them.
#pragma once

#include <memory>

#include "net/protocol.h"
#include "ops/core/graph.h"

namespace tfg::net {

// Nodes in id order; an input from a later node (a loop's back edge into
// its merge) is kept as such, the decoder reconnects it.
GraphDef EncodeGraph(const Graph& graph);

Result<std::unique_ptr<Graph>> DecodeGraph(const GraphDef& def);

// "node:2" -> the output; "node" -> output 0. Errors name what is missing.
Result<Output> FindOutput(const Graph& graph, const std::string& name);

}  // namespace tfg::net
