// Conds inside a while_loop's body, for its gradient (while_gradient.h): a
// forward value computed in one branch of a cond exists only in the
// iterations that took that branch, so its saved copy is popped, and its
// gradient summed, only in the matching backward iterations; elsewhere the
// running sum passes through unchanged.
#include "ops/autodiff/while_gradient.h"

namespace tfg::while_gradient {

Result<Output> WhileGradient::AddInBranch(Output total, Output g, const Branch& b) {
  std::vector<Branch> chain;  // b and the branches it lies in, outermost last
  for (Branch at = b; at.pred.node;) {
    chain.push_back(at);
    auto it = enclosing_.find(KeyOf(at));
    at = it == enclosing_.end() ? Branch{} : it->second;
  }
  return AddThrough(total, g, chain, chain.size());
}

// Switches total on each branch's saved predicate from the outermost in,
// adds g on the side taken, and merges each level back.
Result<Output> WhileGradient::AddThrough(Output total, Output g, const std::vector<Branch>& outermost_last,
                                         size_t level) {
  if (level == 0) return AddOutput("add", {total, g});
  const Branch& b = outermost_last[level - 1];
  TFG_ASSIGN_OR_RETURN(Output pred, Saved(b.pred));
  TFG_ASSIGN_OR_RETURN(Node * sw, Add(kSwitchOp, {total, pred}));
  TFG_ASSIGN_OR_RETURN(Output taken, AddThrough(sw->output(b.side), g, outermost_last, level - 1));
  TFG_ASSIGN_OR_RETURN(Node * merge, Add(kMergeOp, {taken, sw->output(1 - b.side)}));
  return merge->output(0);
}

Result<Node*> WhileGradient::Anchor(const Branch& b) {
  auto [it, added] = anchors_.try_emplace(KeyOf(b), nullptr);
  if (!added) return it->second;
  TFG_ASSIGN_OR_RETURN(Output pred, Saved(b.pred));
  TFG_ASSIGN_OR_RETURN(Node * sw, Add(kSwitchOp, {backward_index_, pred}));
  TFG_ASSIGN_OR_RETURN(Node * live, Add("identity", {sw->output(b.side)}));
  it->second = live;
  return live;
}

WhileGradient::Branch WhileGradient::BranchOf(Output o) const {
  auto it = branch_.find({o.node, o.index});
  return it == branch_.end() ? Branch{} : it->second;
}

int WhileGradient::Depth(const Branch& b) const {
  int depth = 0;
  for (Branch at = b; at.pred.node; ++depth) {
    auto it = enclosing_.find(KeyOf(at));
    at = it == enclosing_.end() ? Branch{} : it->second;
  }
  return depth;
}

WhileGradient::Branch WhileGradient::Deepest(const std::vector<Output>& values) const {
  Branch deepest;
  int depth = 0;
  for (const Output& v : values) {
    const Branch b = BranchOf(v);
    const int d = Depth(b);
    if (d > depth) {
      deepest = b;
      depth = d;
    }
  }
  return deepest;
}

WhileGradient::Branch WhileGradient::BranchOfLoop(const WhileLoopNodes& inner) const {
  std::vector<Output> in;
  for (const WhileLoopNodes::Var& v : inner.vars) in.push_back(v.enter->inputs()[0]);
  for (const Node* e : inner.invariants) in.push_back(e->inputs()[0]);
  return Deepest(in);
}

// Walks the body in build order: a cond's switch opens a branch per
// output, its merge closes it, and every other node is in the innermost
// branch among its inputs.
void WhileGradient::FindBranches() {
  for (Node* n : loop_.members) {
    if (loop_.IsFrameNode(n) || IsEnter(*n)) continue;
    // A loop inside is one computation: its results are live where its
    // inputs are.
    if (const WhileLoopNodes* inner = loop_.InnerLoopOf(n)) {
      if (IsExit(*n)) branch_[{n, 0}] = BranchOfLoop(*inner);
      continue;
    }
    std::vector<Output> from = n->inputs();
    if (from.empty()) {
      for (Node* c : n->control_inputs()) {
        if (c->num_outputs() > 0) from.push_back(c->output(0));
      }
    }
    Branch b = Deepest(from);
    if (IsSwitch(*n)) {
      for (int side = 0; side < 2; ++side) {
        Branch opened{n->inputs()[kSwitchPredInput], side};
        branch_[{n, side}] = opened;
        enclosing_[KeyOf(opened)] = b;
      }
      continue;
    }
    if (IsMerge(*n) && b.pred.node) b = enclosing_[KeyOf(b)];
    for (int i = 0; i < n->num_outputs(); ++i) branch_[{n, i}] = b;
  }
}

}  // namespace tfg::while_gradient
