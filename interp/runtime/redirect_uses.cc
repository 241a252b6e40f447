#include "interp/runtime/redirect_uses.h"

namespace tfg {

Status RedirectUses(Graph& g, int num_nodes, const std::function<bool(int)>& is_member,
                    const std::unordered_map<int, Output>& replacement, std::vector<Output>& fetches) {
  for (int id = 0; id < num_nodes; ++id) {
    if (is_member(id)) continue;
    Node* node = g.node(id);
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      auto it = replacement.find(node->inputs()[i].node->id());
      if (it != replacement.end()) TFG_RETURN_IF_ERROR(node->ReplaceInput(static_cast<int>(i), it->second));
    }
  }
  for (Output& f : fetches) {
    auto it = replacement.find(f.node->id());
    if (it != replacement.end()) f = it->second;
  }
  return Status::OK();
}

}  // namespace tfg
