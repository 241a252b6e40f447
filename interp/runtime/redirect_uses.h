// The last step of the fusion passes (fuse_elementwise.h, fuse_conv.h):
// every use of a replaced node, by a node outside the fused groups or by a
// fetch, moves to the output that stands for it.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// Rewires the inputs of `g`'s first `num_nodes` nodes that are not
// members (is_member(id) false) and the `fetches`: an input or fetch of
// node k becomes replacement[k] where there is one.
Status RedirectUses(Graph& g, int num_nodes, const std::function<bool(int)>& is_member,
                    const std::unordered_map<int, Output>& replacement, std::vector<Output>& fetches);

}  // namespace tfg
