// The gradient of a while_loop (OSDI 2016 §4.4). The forward loop gets an
// iteration counter, and every forward value the body's gradient needs is
// pushed each iteration onto a stack keyed by that counter. A backward loop
// then runs the counter down: its iteration for forward iteration k pops
// what iteration k saved and applies the body's gradient functions — the
// same GradContext rules as outside loops — to the gradient of iteration
// k's results, giving the gradient of its arguments. Loop invariants and xs
// read inside the body have their gradients summed over the iterations in
// extra backward loop variables.
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "ops/autodiff/backprop.h"
#include "ops/autodiff/gradient_scope.h"
#include "ops/core/control_flow.h"

namespace tfg {
namespace {

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

Result<Node*> WhileGradient::Add(const std::string& op, std::vector<Output> inputs, AttrMap attrs,
                                 std::vector<Node*> controls) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.control_inputs = std::move(controls);
  spec.attrs = std::move(attrs);
  spec.name = GradientScope::Current() + "/" + loop_.frame + "/" + op;
  spec.span = loop_.vars[0].exit->span();
  TFG_ASSIGN_OR_RETURN(Node * n, g_.AddNode(std::move(spec)));
  made_->depth[n] = depth_;
  return n;
}

Result<Output> WhileGradient::Constant(int64_t value) {
  TFG_ASSIGN_OR_RETURN(Node * n, Add("constant", {}, {{"value", Tensor::Scalar<int64_t>(value)}, {"dtype", DType::kI64}}));
  return n->output(0);
}

Result<Node*> WhileGradient::Enter(Output value, const std::string& frame, bool constant) {
  return Add(kEnterOp, {value},
             {{while_loop::kFrameNameAttr, frame},
              {while_loop::kIsConstantAttr, constant},
              {while_loop::kParallelIterationsAttr, loop_.parallel_iterations}});
}

void WhileGradient::KeepInForward(Node* n) {
  made_->forward.insert(n);
}

bool WhileGradient::Placed(const Node* n) const {
  if (made_->forward.count(n)) return true;
  auto it = made_->depth.find(n);
  return it != made_->depth.end() && it->second <= depth_;
}

Result<Output> WhileGradient::EnterForward(Output leaf) {
  auto [it, added] = entered_forward_.try_emplace({leaf.node, leaf.index});
  if (!added) return it->second;
  Output from = leaf;
  if (parent_) {
    TFG_ASSIGN_OR_RETURN(from, parent_->EnterForward(leaf));
  }
  TFG_ASSIGN_OR_RETURN(Node * enter, Enter(from, loop_.frame, true));
  KeepInForward(enter);
  it->second = enter->output(0);
  return it->second;
}

Result<std::vector<Output>> WhileGradient::ForwardKey() {
  if (!forward_key_.empty()) return forward_key_;
  if (parent_) {
    TFG_ASSIGN_OR_RETURN(std::vector<Output> outer, parent_->ForwardKey());
    for (const Output& o : outer) {
      TFG_ASSIGN_OR_RETURN(Node * inside, Enter(o, loop_.frame, true));
      KeepInForward(inside);
      forward_key_.push_back(inside->output(0));
    }
  }
  forward_key_.push_back(forward_index_);
  return forward_key_;
}

Result<std::vector<Output>> WhileGradient::BackwardKey() {
  if (!backward_key_.empty()) return backward_key_;
  if (parent_) {
    TFG_ASSIGN_OR_RETURN(std::vector<Output> outer, parent_->BackwardKey());
    for (const Output& o : outer) {
      TFG_ASSIGN_OR_RETURN(Node * inside, Enter(o, backward_frame_, true));
      backward_key_.push_back(inside->output(0));
    }
  }
  backward_key_.push_back(backward_index_);
  return backward_key_;
}

// A counter added to the forward loop as one more loop variable: 0 on
// entry, +1 per iteration, so the body knows its iteration's index and the
// backward loop how many iterations to run. In a loop inside another, its
// count is a value of the enclosing body, saved by that loop's gradient.
Status WhileGradient::CountForwardIterations() {
  TFG_ASSIGN_OR_RETURN(zero_, Constant(0));
  TFG_ASSIGN_OR_RETURN(one_, Constant(1));
  Output start = zero_;
  if (parent_) {
    TFG_ASSIGN_OR_RETURN(start, parent_->EnterForward(zero_));
  }
  TFG_ASSIGN_OR_RETURN(Node * enter, Enter(start, loop_.frame, false));
  TFG_ASSIGN_OR_RETURN(Node * merge, Add(kMergeOp, {enter->output(0), enter->output(0)}));
  TFG_ASSIGN_OR_RETURN(Node * sw, Add(kSwitchOp, {merge->output(0), loop_.pred}));
  TFG_ASSIGN_OR_RETURN(Node * exit, Add(kExitOp, {sw->output(while_loop::kSwitchToExit)}));
  TFG_ASSIGN_OR_RETURN(Output one_inside, EnterForward(one_));
  TFG_ASSIGN_OR_RETURN(forward_increment_, Add("add", {sw->output(while_loop::kSwitchToBody), one_inside}));
  TFG_ASSIGN_OR_RETURN(Node * next, Add(kNextIterationOp, {forward_increment_->output(0)}));
  TFG_RETURN_IF_ERROR(merge->ReplaceInput(while_loop::kMergeFromNextIteration, next->output(0)));
  for (Node* n : {zero_.node, one_.node, enter, merge, sw, exit, forward_increment_, next}) KeepInForward(n);
  if (parent_) {
    parent_->forward_extra_.insert(exit);
    parent_->branch_[{exit, 0}] = parent_->BranchOfLoop(loop_);
  }
  forward_index_ = sw->output(while_loop::kSwitchToBody);
  forward_count_ = exit->output(0);
  return Status::OK();
}

Result<BackVar> WhileGradient::BackLoopVar(Output init) {
  BackVar v;
  v.init = init;
  TFG_ASSIGN_OR_RETURN(Node * enter, Enter(init, backward_frame_, false));
  TFG_ASSIGN_OR_RETURN(v.merge, Add(kMergeOp, {enter->output(0), enter->output(0)}));
  return v;
}

// The backward loop's variables, its condition (counter > 0) and switches;
// the counter steps down by one per iteration.
Status WhileGradient::BuildBackwardLoop() {
  TFG_ASSIGN_OR_RETURN(counter_, BackLoopVar(forward_count_));
  for (GradVar& v : grads_) {
    TFG_ASSIGN_OR_RETURN(v.back, BackLoopVar(v.back.init));
  }
  for (SumVar& v : sums_) {
    TFG_ASSIGN_OR_RETURN(v.back, BackLoopVar(v.back.init));
  }
  TFG_ASSIGN_OR_RETURN(Output zero_inside, EnterBackward(zero_));
  TFG_ASSIGN_OR_RETURN(Node * more, Add("greater", {counter_.merge->output(0), zero_inside}));
  TFG_ASSIGN_OR_RETURN(Node * pred, Add(kLoopCondOp, {more->output(0)}));
  std::vector<BackVar*> all{&counter_};
  for (GradVar& v : grads_) all.push_back(&v.back);
  for (SumVar& v : sums_) all.push_back(&v.back);
  for (BackVar* v : all) {
    TFG_ASSIGN_OR_RETURN(v->sw, Add(kSwitchOp, {v->merge->output(0), pred->output(0)}));
    TFG_ASSIGN_OR_RETURN(v->exit, Add(kExitOp, {v->sw->output(while_loop::kSwitchToExit)}));
  }
  TFG_ASSIGN_OR_RETURN(Output one_inside, EnterBackward(one_));
  TFG_ASSIGN_OR_RETURN(Node * index, Add("sub", {counter_.current(), one_inside}));
  backward_index_ = index->output(0);
  return CloseLoop(counter_, backward_index_);
}

Status WhileGradient::CloseLoop(BackVar& v, Output next) {
  TFG_ASSIGN_OR_RETURN(next, Inside(next));
  TFG_ASSIGN_OR_RETURN(Node * n, Add(kNextIterationOp, {next}));
  return v.merge->ReplaceInput(while_loop::kMergeFromNextIteration, n->output(0));
}

// One backward iteration: the gradient of iteration k's results (the
// backward variables) seeds the body's results, the body is swept newest
// node first, and what reaches its arguments is the gradient of iteration
// k-1's results.
Status WhileGradient::DifferentiateBody(Backprop& body) {
  for (GradVar& v : grads_) body.Contribute(v.forward->next->inputs()[0], v.back.current());
  relocated_ = g_.num_nodes();
  for (auto it = loop_.members.rbegin(); it != loop_.members.rend(); ++it) {
    Node* n = *it;
    // A loop inside the body is differentiated whole, as grad() does
    // outside loops, with its backward loop inside this one's.
    if (const WhileLoopNodes* inner = loop_.InnerLoopOf(n)) {
      if (n->id() == inner->last_id()) {
        WhileGradient gradient(g_, *inner, relevant_, span_, this);
        TFG_RETURN_IF_ERROR(gradient.Build(xs_, body));
        TFG_RETURN_IF_ERROR(Relocate());
      }
      continue;
    }
    if (!relevant_[n->id()] || loop_.IsFrameNode(n) || IsEnter(*n)) continue;
    TFG_RETURN_IF_ERROR(body.Step(n, relevant_));
    TFG_RETURN_IF_ERROR(Relocate());
  }
  for (GradVar& v : grads_) {
    TFG_ASSIGN_OR_RETURN(Output g, body.Total(v.forward->sw->output(while_loop::kSwitchToBody)));
    TFG_RETURN_IF_ERROR(Relocate());
    if (!g.node) {
      TFG_ASSIGN_OR_RETURN(g, AddOutput("zeros_like", {v.back.current()}));
    }
    TFG_RETURN_IF_ERROR(CloseLoop(v.back, g));
  }
  for (SumVar& v : sums_) {
    TFG_ASSIGN_OR_RETURN(Output g, body.Total(v.of));
    TFG_RETURN_IF_ERROR(Relocate());
    Output next = v.back.current();
    if (g.node) {
      TFG_ASSIGN_OR_RETURN(g, Inside(g));
      TFG_ASSIGN_OR_RETURN(next, AddInBranch(next, g, BranchOf(v.of)));
    }
    TFG_RETURN_IF_ERROR(CloseLoop(v.back, next));
  }
  return Status::OK();
}

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

Result<Output> WhileGradient::Inside(Output o) {
  if (InForwardBody(o.node)) {
    if (IsConstantEnter(*o.node)) return EnterBackward(o.node->inputs()[0]);
    return Saved(o);
  }
  const bool new_leaf = o.node->id() >= relocated_floor_ && !Placed(o.node) && o.node->inputs().empty() &&
                        o.node->control_inputs().empty();
  return new_leaf ? EnterBackward(o) : o;
}

Result<Output> WhileGradient::EnterBackward(Output outer) {
  auto [it, added] = entered_.try_emplace({outer.node, outer.index});
  if (!added) return it->second;
  // A leaf outside every loop comes in through the enclosing backward loops;
  // anything else is a value of the enclosing body, which its gradient
  // moves into its backward loop (Relocate).
  Output from = outer;
  if (parent_ && outer.node->inputs().empty() && outer.node->control_inputs().empty()) {
    TFG_ASSIGN_OR_RETURN(from, parent_->EnterBackward(outer));
  }
  TFG_ASSIGN_OR_RETURN(Node * enter, Enter(from, backward_frame_, true));
  it->second = enter->output(0);
  return it->second;
}

// A stack per saved value: pushed in the forward body under the iteration's
// index (the counter's increment waits for the push, so the push runs
// whenever the gradient is wanted), popped in the backward body.
Result<Output> WhileGradient::Saved(Output forward) {
  auto [it, added] = saved_.try_emplace({forward.node, forward.index});
  if (!added) return it->second;
  TFG_ASSIGN_OR_RETURN(Node * stack, Add("value_stack", {}));
  KeepInForward(stack);
  TFG_ASSIGN_OR_RETURN(Output handle_forward, EnterForward(stack->output(0)));
  TFG_ASSIGN_OR_RETURN(std::vector<Output> push_inputs, ForwardKey());
  push_inputs.insert(push_inputs.begin(), handle_forward);
  push_inputs.push_back(forward);
  TFG_ASSIGN_OR_RETURN(Node * push, Add("value_stack_push", std::move(push_inputs)));
  KeepInForward(push);
  // The counter moves on once the iteration's saves have run, or been
  // skipped as dead in a branch not taken.
  if (saves_done_ == nullptr) {
    TFG_ASSIGN_OR_RETURN(saves_done_, Add(kControlTriggerOp, {}, {}, {push}));
    KeepInForward(saves_done_);
    forward_increment_->AddControlInput(saves_done_);
  } else {
    saves_done_->AddControlInput(push);
  }
  TFG_ASSIGN_OR_RETURN(Output handle_backward, EnterBackward(stack->output(0)));
  TFG_ASSIGN_OR_RETURN(std::vector<Output> pop_inputs, BackwardKey());
  pop_inputs.insert(pop_inputs.begin(), handle_backward);
  TFG_ASSIGN_OR_RETURN(Node * pop, Add("value_stack_pop", std::move(pop_inputs),
                                       {{"T", forward.dtype()}, {"element_shape", forward.shape()}}));
  it->second = pop->output(0);
  const Branch branch = BranchOf(forward);
  if (branch.pred.node) {
    TFG_ASSIGN_OR_RETURN(Node * anchor, Anchor(branch));
    pop->AddControlInput(anchor);
  }
  return pop->output(0);
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

Status WhileGradient::Relocate() {
  for (; relocated_ < g_.num_nodes(); ++relocated_) {
    Node* n = g_.node(relocated_);
    if (Placed(n)) continue;
    for (const Node* c : n->control_inputs()) {
      if (loop_.Contains(c)) {
        return Status(Code::kUnimplemented,
                      fmt::format("grad: the gradient of '{}' inside a while_loop waits on a node of the loop; "
                                  "that is not supported yet",
                                  n->name()),
                      n->span());
      }
    }
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      TFG_ASSIGN_OR_RETURN(Output moved, Inside(n->inputs()[i]));
      if (moved != n->inputs()[i]) TFG_RETURN_IF_ERROR(n->ReplaceInput(static_cast<int>(i), moved));
    }
  }
  return Status::OK();
}

Status WhileGradient::Build(const std::vector<Output>& xs, Backprop& outer) {
  xs_ = xs;
  bool any = false;
  for (const WhileLoopNodes::Var& v : loop_.vars) {
    if (!relevant_[v.merge->id()] || !IsFloat(v.merge->output_types()[0])) continue;
    TFG_ASSIGN_OR_RETURN(Output at_exit, outer.Total(v.exit->output(0)));
    any = any || at_exit.node != nullptr;
    grads_.push_back({&v, {at_exit}});
  }
  if (!any) return Status::OK();
  for (GradVar& v : grads_) {
    if (!v.back.init.node) {
      TFG_ASSIGN_OR_RETURN(v.back.init, AddOutput("zeros_like", {v.forward->exit->output(0)}));
    }
  }
  for (Node* e : loop_.invariants) {
    if (!relevant_[e->id()] || !IsFloat(e->output_types()[0])) continue;
    TFG_ASSIGN_OR_RETURN(Node * zeros, Add("zeros_like", {e->inputs()[0]}));
    sums_.push_back({e->output(0), e->inputs()[0], {zeros->output(0)}});
  }
  for (const Output& x : xs) {
    if (!loop_.Contains(x.node) || !relevant_[x.node->id()]) continue;
    if (!x.shape().fully_defined()) {
      return Status(Code::kUnimplemented,
                    fmt::format("grad: '{}' is read inside a while_loop with shape {}; its gradient needs a known "
                                "shape there (not supported yet)",
                                x.name(), x.shape().ToString()),
                    x.node->span());
    }
    std::vector<int64_t> dims = x.shape().dims();
    TFG_ASSIGN_OR_RETURN(Node * zeros, Add("zeros", {}, {{"shape", dims}, {"dtype", x.dtype()}}));
    sums_.push_back({x, x, {zeros->output(0)}});
  }
  FindBranches();
  TFG_RETURN_IF_ERROR(CountForwardIterations());
  TFG_RETURN_IF_ERROR(BuildBackwardLoop());
  relocated_floor_ = g_.num_nodes();
  Backprop body(g_, span_);
  TFG_RETURN_IF_ERROR(DifferentiateBody(body));
  outer.AddBlocked(body.blocked());
  for (GradVar& v : grads_) {
    outer.Contribute(v.forward->enter->inputs()[0], v.back.exit->output(0));
  }
  for (SumVar& v : sums_) {
    outer.Contribute(v.outer_input, v.back.exit->output(0));
  }
  return Status::OK();
}

}  // namespace

Status BackpropWhileLoop(Graph& g, const WhileLoopNodes& loop, const std::vector<bool>& relevant,
                         const std::vector<Output>& xs, Backprop& outer, const SourceSpan& span) {
  WhileGradient gradient(g, loop, relevant, span);
  return gradient.Build(xs, outer);
}

}  // namespace tfg
