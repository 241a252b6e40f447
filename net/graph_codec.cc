#include "net/graph_codec.h"

#include <charconv>
#include <map>

namespace tfg::net {
namespace {

constexpr int32_t kMaxSpanLine = 1 << 20;

// One stand-in file per script path, holding the lines the nodes point
// at (at their line numbers), shared by every node's span.
class SpanFiles {
 public:
  explicit SpanFiles(const GraphDef& def) {
    std::map<std::string, std::map<int32_t, std::string>> lines;
    for (const NodeDef& n : def.nodes) {
      if (!n.span.file.empty() && n.span.line > 0 && n.span.line <= kMaxSpanLine) {
        lines[n.span.file].emplace(n.span.line, n.span.line_text);
      }
    }
    for (auto& [path, by_line] : lines) {
      std::string text;
      int32_t at = 1;
      for (auto& [line, t] : by_line) {
        text.append(static_cast<size_t>(line - at), '\n');
        at = line;
        text += t.substr(0, t.find('\n'));
      }
      files_[path] = std::make_shared<SourceFile>(path, std::move(text));
    }
  }
  SourceSpan Span(const WireSpan& w) const {
    auto it = files_.find(w.file);
    if (it == files_.end() || w.line <= 0 || w.line > kMaxSpanLine) return {};
    return SourceSpan{it->second, w.line, w.col, w.end_line, w.end_col};
  }

 private:
  std::map<std::string, std::shared_ptr<const SourceFile>> files_;
};

Status Bad(const NodeDef& n, const std::string& what) {
  return InvalidArgument("invalid graph from the network: node '{}': {}", n.name, what);
}

// The inputs of node `index`; a reference to a later node is replaced by
// input 0 and recorded in `back`, to be reconnected once all nodes exist.
Result<std::vector<Output>> MapInputs(const NodeDef& n, int index, int num_nodes, const std::vector<Node*>& built,
                                      std::vector<int>& back) {
  std::vector<Output> inputs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const WireInput& in = n.inputs[i];
    if (in.node >= num_nodes) return Bad(n, "an input names a node that is not there");
    if (in.node >= index) {
      if (i == 0) return Bad(n, "its first input comes from a later node");
      back.push_back(static_cast<int>(i));
      inputs.push_back(inputs[0]);
      continue;
    }
    Node* src = built[in.node];
    if (in.output >= src->num_outputs()) return Bad(n, "an input names an output its node does not have");
    inputs.push_back(src->output(in.output));
  }
  return inputs;
}

Status AddNodeFromDef(Graph& g, const GraphDef& def, int index, const SpanFiles& spans, std::vector<Node*>& built,
                      std::vector<std::pair<int, int>>& back_edges) {
  const NodeDef& n = def.nodes[index];
  std::vector<int> back;
  TFG_ASSIGN_OR_RETURN(std::vector<Output> inputs,
                       MapInputs(n, index, static_cast<int>(def.nodes.size()), built, back));
  NodeSpec spec;
  spec.op = n.op;
  spec.inputs = std::move(inputs);
  for (int32_t c : n.control_inputs) {
    if (c >= index) return Bad(n, "a control input names a later node");
    spec.control_inputs.push_back(built[c]);
  }
  spec.attrs = n.attrs;
  spec.name = n.name;
  spec.device = n.requested_device;
  spec.span = spans.Span(n.span);
  auto added = g.AddNode(std::move(spec));
  if (!added.ok()) return Status(added.status()).Prepend("invalid graph from the network: ");
  Node* node = *added;
  if (node->name() != n.name) return Bad(n, "its name is not unique");
  if (n.output_shapes.size() != static_cast<size_t>(node->num_outputs())) {
    return Bad(n, "the number of output shapes differs from its outputs");
  }
  for (int i = 0; i < node->num_outputs(); ++i) {
    Status s = node->RefineOutputShape(i, n.output_shapes[i]);
    if (!s.ok()) return s.Prepend("invalid graph from the network: ");
  }
  node->set_assigned_device(n.assigned_device);
  built.push_back(node);
  for (int i : back) back_edges.emplace_back(index, i);
  return Status::OK();
}

}  // namespace

GraphDef EncodeGraph(const Graph& graph) {
  GraphDef def;
  def.nodes.reserve(graph.num_nodes());
  for (const auto& node : graph.nodes()) {
    NodeDef n;
    n.name = node->name();
    n.op = node->op_name();
    for (const Output& in : node->inputs()) n.inputs.push_back({in.node->id(), in.index});
    for (const Node* c : node->control_inputs()) n.control_inputs.push_back(c->id());
    n.attrs = node->attrs();
    n.requested_device = node->requested_device();
    n.assigned_device = node->assigned_device();
    n.output_shapes = node->output_shapes();
    n.span = ToWireSpan(node->span());
    def.nodes.push_back(std::move(n));
  }
  return def;
}

Result<std::unique_ptr<Graph>> DecodeGraph(const GraphDef& def) {
  auto g = std::make_unique<Graph>();
  SpanFiles spans(def);
  std::vector<Node*> built;
  built.reserve(def.nodes.size());
  std::vector<std::pair<int, int>> back_edges;  // (node, input)
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    TFG_RETURN_IF_ERROR(AddNodeFromDef(*g, def, static_cast<int>(i), spans, built, back_edges));
  }
  for (const auto& [index, input] : back_edges) {
    const NodeDef& n = def.nodes[index];
    const WireInput& in = n.inputs[input];
    Node* src = built[in.node];
    if (in.output >= src->num_outputs()) return Bad(n, "an input names an output its node does not have");
    Status s = built[index]->ReplaceInput(input, src->output(in.output));
    if (!s.ok()) return s.Prepend("invalid graph from the network: ");
  }
  return g;
}

Result<Output> FindOutput(const Graph& graph, const std::string& name) {
  const size_t colon = name.rfind(':');
  std::string node_name = name.substr(0, colon);
  int index = 0;
  if (colon != std::string::npos) {
    const char* begin = name.data() + colon + 1;
    const char* end = name.data() + name.size();
    auto [ptr, ec] = std::from_chars(begin, end, index);
    if (ec != std::errc() || ptr != end || index < 0) return InvalidArgument("bad output name '{}'", name);
  }
  Node* node = graph.FindNode(node_name);
  if (node == nullptr) return NotFound("no node '{}' in the registered graph", node_name);
  if (index >= node->num_outputs()) return NotFound("node '{}' has no output {}", node_name, index);
  return node->output(index);
}

}  // namespace tfg::net
