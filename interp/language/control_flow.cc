#include "interp/language/control_flow.h"
#include "interp/runtime/session.h"

#include "interp/language/builtin_context.h"
#include "ops/core/control_flow.h"

namespace tfg {

InContext::InContext(BuiltinContext& ev, ControlFlowContext* ctx) : ev_(ev), saved_(ev.control_flow()) {
  ev_.set_control_flow(ctx);
}

InContext::~InContext() { ev_.set_control_flow(saved_); }

std::unique_ptr<ControlFlowContext> ControlFlowContext::Cond(ControlFlowContext* outer, Output pred, int branch) {
  std::unique_ptr<ControlFlowContext> c(new ControlFlowContext(Kind::kCond, outer));
  c->pred_ = pred;
  c->branch_ = branch;
  return c;
}

std::unique_ptr<ControlFlowContext> ControlFlowContext::While(ControlFlowContext* outer, std::string frame_name,
                                                              int64_t parallel_iterations) {
  std::unique_ptr<ControlFlowContext> c(new ControlFlowContext(Kind::kWhile, outer));
  c->frame_name_ = std::move(frame_name);
  c->parallel_iterations_ = parallel_iterations;
  return c;
}

bool ControlFlowContext::InsideLoop() const {
  for (const ControlFlowContext* c = this; c != nullptr; c = c->outer_) {
    if (c->kind_ == Kind::kWhile) return true;
  }
  return false;
}

bool ControlFlowContext::Contains(const Node* n) const { return members_.count(n) > 0; }

bool ControlFlowContext::Contains(const Output& o) const {
  return members_.count(o.node) > 0 || values_.count({o.node, o.index}) > 0;
}

void ControlFlowContext::AddMember(const Node* n) {
  for (ControlFlowContext* c = this; c != nullptr; c = c->outer_) c->members_.insert(n);
}

Result<Output> ControlFlowContext::Capture(BuiltinContext& ev, const Output& o, const SourceSpan& span) {
  if (Contains(o)) return o;
  auto cached = captured_.find({o.node, o.index});
  if (cached != captured_.end()) return cached->second;
  InContext in_outer(ev, outer_);
  Output outside = o;
  if (outer_ != nullptr) {
    TFG_ASSIGN_OR_RETURN(outside, outer_->Capture(ev, o, span));
  }
  NodeSpec spec;
  spec.span = span;
  if (kind_ == Kind::kCond) {
    spec.op = kSwitchOp;
    spec.inputs = {outside, pred_};
  } else {
    spec.op = kEnterOp;
    spec.inputs = {outside};
    spec.attrs[while_loop::kFrameNameAttr] = frame_name_;
    spec.attrs[while_loop::kIsConstantAttr] = true;
    spec.attrs[while_loop::kParallelIterationsAttr] = parallel_iterations_;
  }
  BuildOptions opts;
  opts.apply_deps = false;
  TFG_ASSIGN_OR_RETURN(Node * node, ev.AddNode(std::move(spec), opts));
  Output inside = node->output(kind_ == Kind::kCond ? branch_ : 0);
  if (kind_ == Kind::kWhile) invariants_.insert(node);
  AddValue(inside);
  captured_[{o.node, o.index}] = inside;
  return inside;
}

Result<Node*> ControlFlowContext::Pivot(BuiltinContext& ev, const SourceSpan& span) {
  if (pivot_ != nullptr) return pivot_;
  // A cond branch's pivot: the predicate switched into the branch, so it
  // is dead exactly when the branch is.
  Output p = pivot_source_;
  if (kind_ == Kind::kCond) {
    TFG_ASSIGN_OR_RETURN(p, Capture(ev, pred_, span));
  }
  InContext inside(ev, this);
  NodeSpec spec;
  spec.op = "identity";
  spec.name = "pivot";
  spec.inputs = {p};
  spec.span = span;
  BuildOptions opts;
  opts.apply_deps = false;
  TFG_ASSIGN_OR_RETURN(pivot_, ev.AddNode(std::move(spec), opts));
  return pivot_;
}

Status ControlFlowContext::Prepare(BuiltinContext& ev, NodeSpec& spec) {
  for (Output& in : spec.inputs) {
    TFG_ASSIGN_OR_RETURN(in, Capture(ev, in, spec.span));
  }
  if (kind_ == Kind::kWhile) {
    // A loop's frame is entered only through its enters: a control input
    // from outside waits before the first iteration instead.
    std::vector<Node*> inside;
    for (Node* c : spec.control_inputs) {
      if (Contains(c)) {
        inside.push_back(c);
      } else {
        std::unique_lock<std::shared_mutex> lock(ev.session().graph_mutex());
        for (Node* e : enters_) e->AddControlInput(c);
      }
    }
    spec.control_inputs = std::move(inside);
  }
  // A loop invariant is there on every iteration, the last test of the
  // condition included: it does not make a node run once per iteration.
  bool tied = false;
  for (const Output& in : spec.inputs) tied = tied || invariants_.count(in.node) == 0;
  for (Node* c : spec.control_inputs) tied = tied || Contains(c);
  if (!tied) {
    TFG_ASSIGN_OR_RETURN(Node * pivot, Pivot(ev, spec.span));
    spec.control_inputs.push_back(pivot);
  }
  return Status::OK();
}

}  // namespace tfg
