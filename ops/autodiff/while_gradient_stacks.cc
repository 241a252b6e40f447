// How a while_loop's gradient reads forward values (while_gradient.h): a
// value of the forward body is pushed each iteration onto a stack keyed by
// the iterations of this loop and the loops around it, and popped by the
// matching backward iteration; leaves and invariants come in through enters
// of the enclosing frames. Relocate points what the body's gradient
// functions built at these copies.
#include "ops/autodiff/while_gradient.h"

namespace tfg::while_gradient {

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

}  // namespace tfg::while_gradient
