// The arguments of a run checked against a graph, as both the plan builder
// and the graph optimizer (which runs first) meet them: the same checks
// and the same words.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// "matmul 'layer1/matmul'": a node as errors name it.
std::string DescribeNode(const Node& n);

// `n` is a node of `g` (not of another graph, not a stale pointer).
bool InGraph(const Graph& g, const Node* n);

// `o` is an output of a node of `g`; `what` ("feed", "fetch") words the error.
Status CheckRunOutput(const Graph& g, const Output& o, const char* what);

// Which outputs are fed: per node id, the feed index of each output (-1).
class FeedIndex {
 public:
  // Errors: a feed not in the graph, an output fed twice.
  Status Init(const Graph& g, const std::vector<Output>& feeds);
  int Find(const Output& o) const {
    auto it = by_node_.find(o.node->id());
    return it == by_node_.end() ? -1 : it->second[o.index];
  }
  // A node with a fed output is replaced by its feeds: control edges from
  // it are satisfied without running it.
  bool AnyFed(const Node* n) const { return by_node_.count(n->id()) > 0; }

 private:
  std::unordered_map<int, std::vector<int>> by_node_;
};

}  // namespace tfg
