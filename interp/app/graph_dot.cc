// `tfg graph FILE --dot`: the graph in Graphviz syntax. Nodes are labelled
// "name\nop" (the requested device, if any, is the tooltip; a fused
// kernel lists its member ops and nodes); data edges "dtype[shape]";
// control edges are dashed. Name scopes are clusters, as TensorBoard groups
// them; an op that updates a variable in place (assign, apply_adam) names
// it only by an attr, so a bold blue edge from the variable shows it.
#include "interp/app/graph_dot.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "interp/language/interpreter.h"
#include "interp/runtime/fuse_elementwise.h"

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

// "a/b/c" -> {"a", "a/b"}: the scopes a node sits in, outermost first.
std::vector<std::string> ScopesOf(const std::string& name) {
  std::vector<std::string> scopes;
  for (size_t i = name.find('/'); i != std::string::npos; i = name.find('/', i + 1)) {
    scopes.push_back(name.substr(0, i));
  }
  return scopes;
}

// The drawing's boxes: a node, or a scope collapsed below --depth.
struct Layout {
  std::vector<std::string> endpoint;                       // by node id: "n3" or "s1"
  std::map<std::string, std::vector<std::string>> boxes;  // scope -> statements drawn directly in it
  std::map<std::string, int> collapsed;                   // collapsed scope -> its node count
};

std::string NodeStatement(const Node& node, const std::vector<int32_t>* device_of,
                          const std::vector<std::string>* device_names) {
  std::string label = node.name() + "\n" + KernelLabel(node) + FusedMemberLines(node);
  std::string extra;
  std::string tooltip = node.requested_device();
  if (device_of) {
    const int32_t d = (*device_of)[node.id()];
    tooltip = (*device_names)[d];
    extra = fmt::format(", style=filled, fillcolor=\"{}\"", DeviceColour(d));
  }
  if (!tooltip.empty()) extra += fmt::format(", tooltip=\"{}\"", DotEscape(tooltip));
  return fmt::format("n{} [label=\"{}\"{}];", node.id(), DotEscape(label), extra);
}

Layout Lay(const Graph& graph, int depth, const std::vector<int32_t>* device_of,
           const std::vector<std::string>* device_names) {
  Layout layout;
  layout.endpoint.resize(graph.nodes().size());
  std::map<std::string, std::string> collapsed_id;
  for (const auto& node : graph.nodes()) {
    std::vector<std::string> scopes = ScopesOf(node->name());
    const bool collapse = depth >= 0 && static_cast<int>(scopes.size()) > depth;
    if (!collapse) {
      layout.endpoint[node->id()] = fmt::format("n{}", node->id());
      layout.boxes[scopes.empty() ? "" : scopes.back()].push_back(NodeStatement(*node, device_of, device_names));
      continue;
    }
    const std::string& scope = scopes[depth];
    auto [it, added] = collapsed_id.emplace(scope, fmt::format("s{}", collapsed_id.size()));
    layout.endpoint[node->id()] = it->second;
    if (added) layout.boxes[depth == 0 ? "" : scopes[depth - 1]].push_back(it->second);
    ++layout.collapsed[scope];
  }
  // A collapsed scope's statement, now that its node count is known.
  for (auto& [scope, statements] : layout.boxes) {
    for (std::string& s : statements) {
      if (s.empty() || s[0] != 's') continue;
      for (const auto& [name, id] : collapsed_id) {
        if (id != s) continue;
        const int n = layout.collapsed[name];
        s = fmt::format("{} [label=\"{}/\\n{} node{}\", shape=box3d, style=filled, fillcolor=\"#eeeeee\"];", id,
                        DotEscape(name), n, n == 1 ? "" : "s");
      }
    }
  }
  return layout;
}

// The clusters of `scope` and the scopes nested in it, indented.
void EmitScope(const Layout& layout, const std::string& scope, const std::set<std::string>& all_scopes,
               int indent, int& next_cluster, std::string& out) {
  const std::string pad(2 * indent, ' ');
  auto it = layout.boxes.find(scope);
  if (it != layout.boxes.end()) {
    for (const std::string& s : it->second) out += pad + s + "\n";
  }
  const std::string prefix = scope.empty() ? "" : scope + "/";
  for (const std::string& child : all_scopes) {
    // Direct children only: "a/b" under "a", not "a/b/c".
    if (child.compare(0, prefix.size(), prefix) != 0 || child.size() == prefix.size()) continue;
    if (child.find('/', prefix.size()) != std::string::npos) continue;
    out += fmt::format("{}subgraph cluster_{} {{\n{}  label=\"{}\";\n", pad, next_cluster++, pad,
                       DotEscape(child.substr(prefix.size())));
    EmitScope(layout, child, all_scopes, indent + 1, next_cluster, out);
    out += pad + "}\n";
  }
}

// The variables `node` updates in place, with the parameter naming each:
// the variable parameters of apply_* ops, the shared_name of assign,
// assign_add, scatter_*, ... A variable of another graph (a worker's) is
// not drawn.
std::vector<std::pair<const Node*, std::string>> UpdatedVariables(const Graph& graph, const Node& node) {
  std::vector<std::pair<std::string, std::string>> refs;  // variable name, parameter
  for (const std::string& param : node.op().variables) {
    if (const std::string* name = node.attr<std::string>(param)) refs.emplace_back(*name, param);
  }
  if (node.op().variables.empty() && node.op().name != "variable") {
    if (const std::string* name = node.attr<std::string>("shared_name")) refs.emplace_back(*name, "var");
  }
  std::vector<std::pair<const Node*, std::string>> out;
  for (const auto& [name, param] : refs) {
    const Node* var = graph.FindNode(name);
    if (var && var != &node && var->op().name == "variable") out.emplace_back(var, param);
  }
  return out;
}

// Data, control and variable edges between the drawn boxes; edges inside a
// collapsed scope vanish and parallel ones into it are drawn once.
std::string Edges(const Graph& graph, const Layout& layout) {
  std::string out;
  std::set<std::string> drawn;
  auto edge = [&](const std::string& from, const std::string& to, const std::string& attrs) {
    if (from == to) return;
    const bool merged = from[0] == 's' || to[0] == 's';
    std::string line = fmt::format("  {} -> {}{};\n", from, to, merged ? "" : attrs);
    if (merged && !drawn.insert(line).second) return;
    out += line;
  };
  for (const auto& node : graph.nodes()) {
    const std::string& to = layout.endpoint[node->id()];
    for (const Output& in : node->inputs()) {
      // A later output of a multi-output node is marked at the edge's tail.
      std::string tail = in.index != 0 ? fmt::format(", taillabel=\"{}\"", in.index) : "";
      edge(layout.endpoint[in.node->id()], to, fmt::format(" [label=\"{}\"{}]", DotEscape(EdgeLabel(in)), tail));
    }
    for (const Node* c : node->control_inputs()) edge(layout.endpoint[c->id()], to, " [style=dashed]");
    for (const auto& [var, param] : UpdatedVariables(graph, *node)) {
      edge(layout.endpoint[var->id()], to,
           fmt::format(" [label=\"{}\", color=\"#1f78b4\", penwidth=2]", DotEscape(param)));
    }
  }
  return out;
}

std::string DotGraph(const Graph& graph, int depth, const std::vector<int32_t>* device_of,
                     const std::vector<std::string>* device_names) {
  std::string out = "digraph tfg {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  if (device_names) out += DeviceLegend(*device_names);
  Layout layout = Lay(graph, depth, device_of, device_names);
  std::set<std::string> all_scopes;
  for (const auto& [scope, statements] : layout.boxes) {
    for (const std::string& s : ScopesOf(scope + "/")) all_scopes.insert(s);
  }
  int next_cluster = 0;
  EmitScope(layout, "", all_scopes, 1, next_cluster, out);
  return out + Edges(graph, layout) + "}\n";
}

}  // namespace

std::string GraphToDot(const Graph& graph) { return DotGraph(graph, -1, nullptr, nullptr); }

std::string GraphToDot(const Graph& graph, const DotOptions& options) {
  return DotGraph(graph, options.depth, nullptr, nullptr);
}

std::string GraphToDot(const Graph& graph, const std::vector<int32_t>& device_of,
                       const std::vector<std::string>& device_names) {
  return DotGraph(graph, -1, &device_of, &device_names);
}

}  // namespace tfg
