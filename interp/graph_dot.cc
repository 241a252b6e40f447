// `tfg graph FILE --dot`: the graph in Graphviz syntax. Nodes are labelled
// "name\nop" (the requested device, if any, is the tooltip); data edges
// "dtype[shape]"; control edges are dashed.
#include <fmt/format.h>

#include "interp/interpreter.h"

namespace tfg {

namespace {

// Escapes text for a double-quoted dot string.
std::string DotEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string EdgeLabel(const Output& o) { return std::string(DTypeName(o.dtype())) + o.shape().ToString(); }

}  // namespace

std::string GraphToDot(const Graph& graph) {
  std::string out = "digraph tfg {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (const auto& node : graph.nodes()) {
    std::string label = node->name() + "\n" + node->op_name();
    std::string extra;
    if (!node->requested_device().empty()) extra = fmt::format(", tooltip=\"{}\"", DotEscape(node->requested_device()));
    out += fmt::format("  n{} [label=\"{}\"{}];\n", node->id(), DotEscape(label), extra);
  }
  for (const auto& node : graph.nodes()) {
    for (const Output& in : node->inputs()) {
      // A later output of a multi-output node is marked at the edge's tail.
      std::string tail = in.index != 0 ? fmt::format(", taillabel=\"{}\"", in.index) : "";
      out += fmt::format("  n{} -> n{} [label=\"{}\"{}];\n", in.node->id(), node->id(), DotEscape(EdgeLabel(in)), tail);
    }
    for (const Node* c : node->control_inputs()) {
      out += fmt::format("  n{} -> n{} [style=dashed];\n", c->id(), node->id());
    }
  }
  return out + "}\n";
}

}  // namespace tfg
