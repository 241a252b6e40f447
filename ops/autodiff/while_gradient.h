// The builder of one while_loop's gradient (OSDI 2016 §4.4), shared by the
// files that define it: while_gradients.cc builds the iteration counter and
// the backward loop and differentiates the body; while_gradient_stacks.cc
// carries forward values into the backward loop (stacks keyed by
// iteration, enters through the enclosing frames); while_gradient_branches.cc
// keeps gradients of values inside a cond of the body live only in the
// iterations that took their branch. Internal to ops/autodiff: the rest of
// tfg calls BackpropWhileLoop (backprop.h).
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ops/autodiff/backprop.h"
#include "ops/autodiff/gradient_scope.h"
#include "ops/core/control_flow.h"

namespace tfg::while_gradient {

// A loop variable of the backward loop.
struct BackVar {
  Output init;  // value on entry (outside the loop)
  Node* merge = nullptr;
  Node* sw = nullptr;
  Node* exit = nullptr;
  Output current() const { return sw->output(while_loop::kSwitchToBody); }
};

class WhileGradient {
 public:
  // `parent`: the gradient of the loop this one lies in (its backward loop
  // holds this one's), or null.
  WhileGradient(Graph& g, const WhileLoopNodes& loop, const std::vector<bool>& relevant, const SourceSpan& span,
                WhileGradient* parent = nullptr)
      : g_(g), loop_(loop), relevant_(relevant), span_(span),
        backward_frame_(fmt::format("{}/{}#{}", GradientScope::Current(), loop.frame, g.num_nodes())), parent_(parent),
        depth_(parent ? parent->depth_ + 1 : 0), made_(parent ? parent->made_ : std::make_shared<Made>()) {}

  Status Build(const std::vector<Output>& xs, Backprop& outer);

 private:
  // What flows backwards: one variable per loop variable that carries a
  // gradient, one per summed gradient (invariants, xs in the body).
  struct GradVar {
    const WhileLoopNodes::Var* forward;
    BackVar back;
  };
  struct SumVar {
    Output of;  // forward: the invariant's enter, or an x
    Output outer_input;  // where the sum goes: the enter's input, or the x itself
    BackVar back;
  };

  Result<Node*> Add(const std::string& op, std::vector<Output> inputs, AttrMap attrs = {},
                    std::vector<Node*> controls = {});
  Result<Output> AddOutput(const std::string& op, std::vector<Output> inputs) {
    TFG_ASSIGN_OR_RETURN(Node * n, Add(op, std::move(inputs)));
    return n->output(0);
  }
  Result<Output> Constant(int64_t value);
  Result<Node*> Enter(Output value, const std::string& frame, bool constant);
  // `leaf` (a node without inputs, outside every loop) inside the forward
  // loop, through the enclosing loops' frames.
  Result<Output> EnterForward(Output leaf);
  // Nodes added to the forward loops stay where they are: the enclosing
  // loops' gradients must not move them into their backward loops.
  void KeepInForward(Node* n);
  // The key a value of this iteration is saved under: the iteration of
  // each enclosing loop, then this one's.
  Result<std::vector<Output>> ForwardKey();
  Result<std::vector<Output>> BackwardKey();

  Status CountForwardIterations();
  Result<BackVar> BackLoopVar(Output init);
  Status BuildBackwardLoop();
  Status DifferentiateBody(Backprop& body);
  Status CloseLoop(BackVar& v, Output next);

  // The branch of a cond inside the body that a forward value is live in
  // (the innermost); `pred.node == nullptr`: the body itself.
  struct Branch {
    Output pred;
    int side = 0;
  };
  using BranchKey = std::tuple<const Node*, int, int>;
  static BranchKey KeyOf(const Branch& b) { return {b.pred.node, b.pred.index, b.side}; }
  void FindBranches();
  Branch BranchOf(Output o) const;
  int Depth(const Branch& b) const;
  Branch Deepest(const std::vector<Output>& values) const;
  // Where a loop inside the body runs: where its inputs are live.
  Branch BranchOfLoop(const WhileLoopNodes& inner) const;
  // A node of the backward body that is live exactly in the iterations
  // whose forward pass took branch `b`.
  Result<Node*> Anchor(const Branch& b);
  // total + g, where g is live only in the iterations whose forward pass
  // took `b` (a variable read inside a cond of the body): in the others
  // total passes unchanged, so the sum stays live.
  Result<Output> AddInBranch(Output total, Output g, const Branch& b);
  Result<Output> AddThrough(Output total, Output g, const std::vector<Branch>& outermost_last, size_t level);

  // Where a node built for the backward body may read `o` from: forward
  // values come off a stack, invariants and constants through an enter.
  Result<Output> Inside(Output o);
  bool InForwardBody(const Node* n) const { return loop_.Contains(n) || forward_extra_.count(n) > 0; }
  Result<Output> Saved(Output forward);
  Result<Output> EnterBackward(Output outer);
  // Points the inputs of every node built since the last call at Inside().
  Status Relocate();

  Graph& g_;
  const WhileLoopNodes& loop_;
  const std::vector<bool>& relevant_;
  SourceSpan span_;
  std::string backward_frame_;
  WhileGradient* parent_;
  std::vector<Output> xs_;
  const int depth_;  // how many loops this one lies in
  // Who built what, shared by the gradients of a loop and of the loops
  // inside it: `depth` by node, and the nodes that stay in the forward loops.
  struct Made {
    std::unordered_map<const Node*, int> depth;
    std::unordered_set<const Node*> forward;
  };
  std::shared_ptr<Made> made_;
  // Built here or by an enclosing loop's gradient (so in the right frame
  // already), or left in a forward loop: Relocate leaves it alone.
  bool Placed(const Node* n) const;
  // Forward values an inner loop's gradient added to this loop's body (its
  // iteration count), saved like the body's own.
  std::unordered_set<const Node*> forward_extra_;
  std::map<std::pair<const Node*, int>, Output> entered_forward_;
  std::vector<Output> forward_key_, backward_key_;
  int relocated_ = 0;
  // Nodes from here on were built for the backward body.
  int relocated_floor_ = std::numeric_limits<int>::max();

  std::vector<GradVar> grads_;
  std::vector<SumVar> sums_;
  Output zero_, one_;              // i64 constants outside both loops
  Output forward_index_;          // the forward iteration, inside the forward body
  Node* forward_increment_ = nullptr;  // waits for the pushes of its iteration
  Output forward_count_;          // iterations run, after the forward loop
  BackVar counter_;
  Output backward_index_;         // the forward iteration being differentiated
  std::map<std::pair<const Node*, int>, Output> saved_, entered_;
  Node* saves_done_ = nullptr;  // the control_trigger the counter waits on
  std::map<std::pair<const Node*, int>, Branch> branch_;  // by forward output
  std::map<BranchKey, Branch> enclosing_;  // the branch a cond sits in
  std::map<BranchKey, Node*> anchors_;
};

}  // namespace tfg::while_gradient
