// The rewrites behind OptimizeGraph (interp/runtime/graph_optimizer.h), each in its
// own file: which nodes a rewrite may touch, constant folding
// (constant_folding.cc) and the table that finds equal nodes (cse.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/tensor.h"

namespace tfg {

class Device;

// Whether a node may be folded or merged at all: not stateful, touching no
// variable, no control-flow op, no control inputs (in a loop body they tie
// a node to its frame), and some output.
bool MayRewrite(const Node& node);

// The value of `node`'s single output computed by its CPU kernel from the
// constant `inputs`, or nullopt when it is not worth or not safe to fold:
// more than one output, an output the shape function cannot predict fully
// or with more than `max_elements` elements, an async kernel, or any error
// (the node then runs, and fails, as it would have).
std::optional<Tensor> FoldNode(const Node& node, const std::vector<Tensor>& inputs, int64_t max_elements,
                               Device* cpu);

// Nodes of the graph being built, found by what they compute: op, inputs,
// control inputs, device and attrs (tensors by value). Names and spans are
// no part of a node's identity.
class CseTable {
 public:
  // A node equal to what `spec` would build, or null.
  Node* Find(const NodeSpec& spec) const;
  void Insert(Node* node);

 private:
  std::unordered_multimap<size_t, Node*> by_hash_;
};

}  // namespace tfg
