// What the single-node fusion passes (fuse_conv.h, fuse_pool_relu_grad.h)
// share: which nodes they may take, and how a fused node is added in place
// of the last node it stands for.
#pragma once

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

}  // namespace tfg
