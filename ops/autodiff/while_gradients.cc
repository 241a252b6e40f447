// The gradient of a while_loop (OSDI 2016 §4.4). The forward loop gets an
// iteration counter, and every forward value the body's gradient needs is
// pushed each iteration onto a stack keyed by that counter. A backward loop
// then runs the counter down: its iteration for forward iteration k pops
// what iteration k saved and applies the body's gradient functions — the
// same GradContext rules as outside loops — to the gradient of iteration
// k's results, giving the gradient of its arguments. Loop invariants and xs
// read inside the body have their gradients summed over the iterations in
// extra backward loop variables.
//
// This file builds the counter and the backward loop and differentiates the
// body; reading forward values there is while_gradient_stacks.cc, conds in
// the body while_gradient_branches.cc (the class: while_gradient.h).
#include "ops/autodiff/while_gradient.h"

namespace tfg {
namespace while_gradient {

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

}  // namespace while_gradient

Status BackpropWhileLoop(Graph& g, const WhileLoopNodes& loop, const std::vector<bool>& relevant,
                         const std::vector<Output>& xs, Backprop& outer, const SourceSpan& span) {
  while_gradient::WhileGradient gradient(g, loop, relevant, span);
  return gradient.Build(xs, outer);
}

}  // namespace tfg
