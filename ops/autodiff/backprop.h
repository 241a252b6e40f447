// The machinery behind AddGradients, shared by the sweep over the graph
// (gradients.cc) and the backward loops it builds for while_loops
// (while_gradients.cc). Not for op authors: they see only GradContext.
#pragma once

#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ops/autodiff/gradients.h"

namespace tfg {

// Gradients collected so far, keyed by the forward output they belong to,
// and the step that turns one node's output gradients into its input
// gradients.
class Backprop {
 public:
  Backprop(Graph& g, const SourceSpan& span) : g_(g), span_(span) {}

  void Contribute(Output at, Output grad);
  // The sum of every contribution to `at`; node==nullptr when none.
  Result<Output> Total(Output at);
  // Runs `node`'s gradient function on the totals at its outputs and
  // contributes the results to its inputs that lead back to an x.
  Status Step(Node* node, const std::vector<bool>& relevant);

  // Nodes on a path from an x to a y through which no gradient passed
  // (no-gradient ops, integer edges) and why, in the order they were met.
  const std::vector<std::pair<Node*, std::string>>& blocked() const { return blocked_; }
  void AddBlocked(const std::vector<std::pair<Node*, std::string>>& more);

 private:
  struct Key {
    int node;
    int index;
    bool operator<(const Key& o) const { return node != o.node ? node < o.node : index < o.index; }
  };

  void Block(Node* node, size_t input, const char* why);

  Graph& g_;
  SourceSpan span_;
  std::map<Key, std::vector<Output>> pending_;
  std::vector<std::pair<Node*, std::string>> blocked_;
};

// A while_loop as its builder made it: per loop variable an enter, a merge
// (fed back by next_iteration), a switch on the predicate and an exit;
// loop invariants come in through constant enters.
struct WhileLoopNodes {
  struct Var {
    Node* enter = nullptr;
    Node* merge = nullptr;
    Node* sw = nullptr;
    Node* exit = nullptr;
    Node* next = nullptr;
  };
  std::string frame;
  int64_t parallel_iterations = 10;
  Output pred;  // loop_cond's output
  std::vector<Var> vars;
  std::vector<Node*> invariants;
  std::vector<Node*> members;  // every node of the frame and of loops inside it, ascending ids
  std::unordered_set<const Node*> member_set;
  std::vector<WhileLoopNodes> inner;  // loops directly inside the body

  bool Contains(const Node* n) const { return member_set.count(n) > 0; }
  // The loop of `inner` that `n` belongs to, or null.
  const WhileLoopNodes* InnerLoopOf(const Node* n) const;
  int last_id() const { return members.back()->id(); }
  // One of the nodes that make the loop a loop (not the body or condition).
  bool IsFrameNode(const Node* n) const;
};

// The outermost loops with an exit in `relevant` (loops inside them, with
// one there too, in their `inner`); loop_of[id] is the index of the
// outermost loop node `id` belongs to, or -1.
Result<std::vector<WhileLoopNodes>> FindWhileLoops(const Graph& g, const std::vector<bool>& relevant,
                                                   std::vector<int>* loop_of);

// Differentiates a whole loop (OSDI 2016 §4.4): takes the gradients at its
// exits from `outer`, builds a backward loop that runs the body's gradient
// once per forward iteration, newest first, on values the forward loop
// saved per iteration, and contributes to `outer` the gradients of the
// loop's inputs and of the xs inside it.
Status BackpropWhileLoop(Graph& g, const WhileLoopNodes& loop, const std::vector<bool>& relevant,
                         const std::vector<Output>& xs, Backprop& outer, const SourceSpan& span);

}  // namespace tfg
