// `tfg graph FILE --dot`: the graph in Graphviz syntax. Nodes are labelled
// "name\nop" (the requested device, if any, is the tooltip); data edges
// "dtype[shape]"; control edges are dashed.
#include <fmt/format.h>

#include "interp/language/interpreter.h"

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

// Fill colours by device index (repeating after the last).
constexpr const char* kDeviceColours[] = {"#a6cee3", "#fdbf6f", "#b2df8a", "#fb9a99",
                                          "#cab2d6", "#ffff99", "#1f78b4", "#33a02c"};

const char* DeviceColour(int32_t device) {
  constexpr int n = sizeof(kDeviceColours) / sizeof(kDeviceColours[0]);
  return kDeviceColours[device % n];
}

// A legend cluster: one filled box per device.
std::string DeviceLegend(const std::vector<std::string>& device_names) {
  std::string out = "  subgraph cluster_devices {\n    label=\"devices\";\n";
  for (size_t i = 0; i < device_names.size(); ++i) {
    out += fmt::format("    device{} [label=\"{}\", style=filled, fillcolor=\"{}\"];\n", i,
                       DotEscape(device_names[i]), DeviceColour(static_cast<int32_t>(i)));
  }
  return out + "  }\n";
}

std::string DotGraph(const Graph& graph, const std::vector<int32_t>* device_of,
                     const std::vector<std::string>* device_names) {
  std::string out = "digraph tfg {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  if (device_names) out += DeviceLegend(*device_names);
  for (const auto& node : graph.nodes()) {
    std::string label = node->name() + "\n" + node->op_name();
    std::string extra;
    std::string tooltip = node->requested_device();
    if (device_of) {
      const int32_t d = (*device_of)[node->id()];
      tooltip = (*device_names)[d];
      extra = fmt::format(", style=filled, fillcolor=\"{}\"", DeviceColour(d));
    }
    if (!tooltip.empty()) extra += fmt::format(", tooltip=\"{}\"", DotEscape(tooltip));
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

}  // namespace

std::string GraphToDot(const Graph& graph) { return DotGraph(graph, nullptr, nullptr); }

std::string GraphToDot(const Graph& graph, const std::vector<int32_t>& device_of,
                       const std::vector<std::string>& device_names) {
  return DotGraph(graph, &device_of, &device_names);
}

}  // namespace tfg
