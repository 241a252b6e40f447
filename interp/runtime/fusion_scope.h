// What the single-node fusion passes (fuse_conv.h, fuse_pool_relu_grad.h)
// share: which nodes they may take, how a fused node is added in place of
// the last node it stands for, and how the uses of that node move to it.
#pragma once

#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// The graph as a fusion pass sees it before rewriting: each node's users
// (one entry per input edge, so a value used twice by one node counts
// twice), and which nodes are out of bounds: `blocked` (a control edge
// either way, or a run target) and `fetched`.
struct FusionScope {
  FusionScope(const Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets);
  std::vector<std::vector<const Node*>> users;
  std::vector<char> blocked, fetched;
};

// Whether a and b ask for the same device and were placed on the same one.
inline bool OnSameDevice(const Node& a, const Node& b) {
  return a.requested_device() == b.requested_device() && a.assigned_device() == b.assigned_device();
}

// Adds `spec` as the node that stands for `last`: named after it, on its
// device, its output shape refined as `last`'s was (a set_shape stays part
// of the contract). `what` ("fusing a convolution") prefixes an error.
Result<Node*> AddFusedNode(Graph& g, NodeSpec spec, const Node& last, const char* what);

// A pass's rewrite of the graph's first `num_nodes` nodes: the members of
// its groups (left without users, for the caller to prune) and, for each
// group's last node, the output that stands for it.
class FusionRewrite {
 public:
  explicit FusionRewrite(int num_nodes) : num_nodes_(num_nodes), member_(static_cast<size_t>(num_nodes), 0) {}
  void AddMember(const Node& n) { member_[static_cast<size_t>(n.id())] = 1; }
  void Replace(const Node& last, Output by) { by_[last.id()] = by; }
  // `o`, or what stands for its node: a group may read an earlier group's
  // last node.
  Output Mapped(const Output& o) const;
  // Moves every use of a replaced node, by a non-member or by `fetches`.
  Status RedirectUses(Graph& g, std::vector<Output>& fetches) const;

 private:
  int num_nodes_;
  std::vector<char> member_;
  std::unordered_map<int, Output> by_;
};

}  // namespace tfg
