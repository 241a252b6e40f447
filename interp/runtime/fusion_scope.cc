#include "interp/runtime/fusion_scope.h"

#include <string>

#include "interp/runtime/redirect_uses.h"

namespace tfg {

FusionScope::FusionScope(const Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets)
    : users(g.num_nodes()), blocked(g.num_nodes(), 0), fetched(g.num_nodes(), 0) {
  for (const auto& node : g.nodes()) {
    for (const Output& in : node->inputs()) users[in.node->id()].push_back(node.get());
    for (const Node* c : node->control_inputs()) blocked[c->id()] = 1;
    if (!node->control_inputs().empty()) blocked[node->id()] = 1;
  }
  for (const Output& f : fetches) fetched[f.node->id()] = 1;
  for (const Node* t : targets) blocked[t->id()] = 1;
}

Result<Node*> AddFusedNode(Graph& g, NodeSpec spec, const Node& last, const char* what) {
  spec.name = last.name() + "/fused";
  spec.device = last.requested_device();
  auto node = g.AddNode(std::move(spec));
  if (!node.ok()) {
    Status s = node.status();
    return s.Prepend(std::string(what) + ": ");
  }
  if (!last.assigned_device().empty()) (*node)->set_assigned_device(last.assigned_device());
  Status refined = (*node)->RefineOutputShape(0, last.output_shapes()[0]);
  if (!refined.ok()) return refined.WithSpan(last.span());
  return *node;
}

Output FusionRewrite::Mapped(const Output& o) const {
  auto it = by_.find(o.node->id());
  return it == by_.end() ? o : it->second;
}

Status FusionRewrite::RedirectUses(Graph& g, std::vector<Output>& fetches) const {
  return tfg::RedirectUses(
      g, num_nodes_, [&](int id) { return member_[static_cast<size_t>(id)] != 0; }, by_, fetches);
}

}  // namespace tfg
