#include "ops/autodiff/gradients.h"

#include "ops/autodiff/backprop.h"
#include "ops/autodiff/gradient_scope.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "ops/core/control_flow.h"
#include "ops/core/dtype_traits.h"

namespace tfg {

Result<Node*> GradContext::OpNode(const std::string& op, std::vector<Output> inputs, AttrMap attrs) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.name = GradientScope::Current() + "/" + node->name() + "/" + op;
  spec.device = node->requested_device();
  spec.span = node->span();
  return graph->AddNode(std::move(spec));
}

Result<Output> GradContext::Op(const std::string& op, std::vector<Output> inputs, AttrMap attrs) {
  TFG_ASSIGN_OR_RETURN(Node * n, OpNode(op, std::move(inputs), std::move(attrs)));
  if (n->num_outputs() == 0) return Internal("gradient op '{}' has no output", op);
  return n->output(0);
}

namespace {

Result<Tensor> ScalarTensor(double value, DType dtype) {
  switch (dtype) {
    case DType::kF16: return Tensor::Scalar<half>(half(static_cast<float>(value)));
    case DType::kF32: return Tensor::Scalar<float>(static_cast<float>(value));
    case DType::kF64: return Tensor::Scalar<double>(value);
    case DType::kI32: return Tensor::Scalar<int32_t>(static_cast<int32_t>(value));
    case DType::kI64: return Tensor::Scalar<int64_t>(static_cast<int64_t>(value));
    default: return InvalidArgument("no numeric scalar of dtype {}", DTypeName(dtype));
  }
}

}  // namespace

Result<Output> GradContext::Scalar(double value, DType dtype) {
  TFG_ASSIGN_OR_RETURN(Tensor t, ScalarTensor(value, dtype));
  return Op("constant", {}, {{"value", t}, {"dtype", dtype}});
}

Result<Output> GradContext::OutputGrad(int i) {
  if (output_grads[i].node) return output_grads[i];
  return Op("zeros_like", {output(i)});
}

Result<Output> GradContext::Unbroadcast(Output grad, Output like) {
  if (grad.shape().fully_defined() && grad.shape() == like.shape()) return grad;
  return Op("unbroadcast", {grad, like});
}

namespace {

// Nodes reachable forward from `from` along data edges. Ids are in
// topological order (a node's inputs have smaller ids) except for a
// while_loop's back edge into its merge, so the sweep repeats until
// nothing changes: once, without loops.
std::vector<bool> ForwardReach(const Graph& g, const std::vector<Output>& from) {
  std::vector<bool> reach(g.num_nodes(), false);
  int lowest = g.num_nodes();
  for (const Output& o : from) {
    reach[o.node->id()] = true;
    lowest = std::min(lowest, o.node->id());
  }
  bool back_edges = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (int id = lowest; id < g.num_nodes(); ++id) {
      for (const Output& in : g.node(id)->inputs()) {
        back_edges = back_edges || in.node->id() > id;
        if (!reach[id] && reach[in.node->id()]) {
          reach[id] = true;
          changed = true;
        }
      }
    }
    changed = changed && back_edges;
  }
  return reach;
}

std::vector<bool> BackwardReach(const Graph& g, const std::vector<Output>& from) {
  std::vector<bool> reach(g.num_nodes(), false);
  int highest = -1;
  for (const Output& o : from) {
    reach[o.node->id()] = true;
    highest = std::max(highest, o.node->id());
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int id = highest; id >= 0; --id) {
      if (!reach[id]) continue;
      for (const Output& in : g.node(id)->inputs()) {
        if (reach[in.node->id()]) continue;
        reach[in.node->id()] = true;
        changed = changed || in.node->id() > id;
        highest = std::max(highest, in.node->id());
      }
    }
  }
  return reach;
}

}  // namespace

void Backprop::Contribute(Output at, Output grad) { pending_[{at.node->id(), at.index}].push_back(grad); }

void Backprop::AddBlocked(const std::vector<std::pair<Node*, std::string>>& more) {
  blocked_.insert(blocked_.end(), more.begin(), more.end());
}

Result<Output> Backprop::Total(Output at) {
  auto it = pending_.find({at.node->id(), at.index});
  if (it == pending_.end() || it->second.empty()) return Output{};
  std::vector<Output>& parts = it->second;
  Output sum = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    NodeSpec spec{"add", {sum, parts[i]}, {}, {}, GradientScope::Current() + "/" + at.node->name() + "/sum", "", at.node->span()};
    TFG_ASSIGN_OR_RETURN(Node * n, g_.AddNode(std::move(spec)));
    sum = n->output(0);
  }
  parts.assign(1, sum);
  return sum;
}

Status Backprop::Step(Node* node, const std::vector<bool>& relevant) {
  // A node none of whose inputs leads back to an x (an x's own producer)
  // has nothing to pass on: its op need not be differentiable.
  bool feeds_x = false;
  for (const Output& in : node->inputs()) feeds_x = feeds_x || (relevant[in.node->id()] && IsFloat(in.dtype()));
  if (!feeds_x) {
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      if (relevant[node->inputs()[i].node->id()]) Block(node, i, "is not a float tensor");
    }
    return Status::OK();
  }
  GradContext ctx{&g_, node, {}, {}};
  bool any = false;
  for (int i = 0; i < node->num_outputs(); ++i) {
    TFG_ASSIGN_OR_RETURN(Output total, Total(node->output(i)));
    any = any || total.node != nullptr;
    ctx.output_grads.push_back(total);
  }
  if (!any) return Status::OK();
  const OpDef& op = node->op();
  if (!op.grad_fn) {
    if (!op.no_gradient_reason.empty()) {
      blocked_.push_back({node, op.no_gradient_reason});
      return Status::OK();
    }
    Status s(Code::kUnimplemented, fmt::format("no gradient is defined for op '{}' (node '{}')", op.name, node->name()),
             node->span());
    return s.AddNote(span_, "gradient requested here");
  }
  ctx.input_grads.assign(node->inputs().size(), Output{});
  Status s = op.grad_fn(ctx);
  if (!s.ok()) return s.WithSpan(node->span());
  for (size_t i = 0; i < node->inputs().size(); ++i) {
    Output in = node->inputs()[i];
    if (!relevant[in.node->id()] || !IsFloat(in.dtype())) continue;
    if (ctx.input_grads[i].node) {
      Contribute(in, ctx.input_grads[i]);
    } else {
      Block(node, i, "gets no gradient from it");
    }
  }
  return Status::OK();
}

void Backprop::Block(Node* node, size_t input, const char* why) {
  const std::vector<ArgDef>& args = node->op().inputs;
  const std::string arg = input < args.size() && !args[input].is_list ? args[input].name : std::to_string(input);
  blocked_.push_back({node, fmt::format("its input '{}' ({}) {}", arg, DTypeName(node->input_types()[input]), why)});
}

namespace {

Status CheckFloat(const Output& o, const char* what, const SourceSpan& span) {
  if (IsFloat(o.dtype())) return Status::OK();
  return Status(Code::kInvalidArgument,
                fmt::format("grad: {} '{}' is {}; gradients need a float tensor", what, o.name(), DTypeName(o.dtype())),
                span);
}

// The error for an x that got no gradient: either no y depends on it, or
// every path to it crosses an op that passes no gradient (named in a note).
Status NoGradientError(const Output& x, bool reaches_y, const std::vector<std::pair<Node*, std::string>>& blocked,
                       const std::vector<bool>& fwd, const SourceSpan& span) {
  const std::string& name = x.node->name();
  if (!reaches_y) {
    Status s(Code::kInvalidArgument,
             fmt::format("grad: the result does not depend on '{}'; no gradient flows to it", name), span);
    return s.AddNote(x.node->span(), "'" + name + "' is defined here");
  }
  Status s(Code::kInvalidArgument,
           fmt::format("grad: no gradient flows to '{}': every path from it to the result passes through an op "
                       "that has no gradient",
                       name),
           span);
  s.AddNote(x.node->span(), "'" + name + "' is defined here");
  // A while_loop on the way is the reason (its predicate's bool input is
  // incidental); otherwise name the blocking node nearest to x (the last
  // met going backwards).
  for (const auto& [n, why] : blocked) {
    if (!IsExit(*n) || !fwd[n->id()]) continue;
    return s.AddNote(n->span(), fmt::format("'{}' ({}) passes no gradient: {}", n->name(), n->op_name(), why));
  }
  for (auto it = blocked.rbegin(); it != blocked.rend(); ++it) {
    const Node* n = it->first;
    if (!fwd[n->id()]) continue;
    return s.AddNote(n->span(), fmt::format("'{}' ({}) passes no gradient: {}", n->name(), n->op_name(), it->second));
  }
  return s;
}

Result<std::vector<Output>> Differentiate(Graph& g, const std::vector<Output>& ys, const std::vector<Output>& xs,
                                          const std::vector<Output>& grad_ys, const SourceSpan& span, bool partial) {
  if (!grad_ys.empty() && grad_ys.size() != ys.size()) {
    return Status(Code::kInvalidArgument, "grad: grad_ys must give one tensor per y", span);
  }
  for (const Output& y : ys) TFG_RETURN_IF_ERROR(CheckFloat(y, "y", span));
  for (const Output& x : xs) TFG_RETURN_IF_ERROR(CheckFloat(x, "x", span));
  std::vector<bool> fwd = ForwardReach(g, xs), bwd = BackwardReach(g, ys);
  std::vector<bool> relevant(g.num_nodes());
  for (int i = 0; i < g.num_nodes(); ++i) relevant[i] = fwd[i] && bwd[i];

  Backprop bp(g, span);
  int top = -1;
  for (size_t i = 0; i < ys.size(); ++i) {
    Output seed = grad_ys.empty() ? Output{} : grad_ys[i];
    if (!seed.node) {
      NodeSpec spec{"ones_like", {ys[i]}, {}, {}, GradientScope::Current() + "/" + ys[i].node->name() + "/seed", "", span};
      TFG_ASSIGN_OR_RETURN(Node * n, g.AddNode(std::move(spec)));
      seed = n->output(0);
    }
    bp.Contribute(ys[i], seed);
    top = std::max(top, ys[i].node->id());
  }
  // A while_loop is differentiated whole, when the sweep reaches its
  // newest node: everything that reads its exits has been swept by then.
  std::vector<int> loop_of;
  TFG_ASSIGN_OR_RETURN(std::vector<WhileLoopNodes> loops, FindWhileLoops(g, relevant, &loop_of));
  // A y may be a loop's exit, built before the loop's body.
  for (const WhileLoopNodes& loop : loops) top = std::max(top, loop.last_id());
  for (int id = top; id >= 0; --id) {
    if (loop_of[id] >= 0) {
      const WhileLoopNodes& loop = loops[loop_of[id]];
      if (id == loop.last_id()) TFG_RETURN_IF_ERROR(BackpropWhileLoop(g, loop, relevant, xs, bp, span));
    } else if (relevant[id]) {
      TFG_RETURN_IF_ERROR(bp.Step(g.node(id), relevant));
    }
  }
  std::vector<Output> out;
  for (const Output& x : xs) {
    TFG_ASSIGN_OR_RETURN(Output total, bp.Total(x));
    if (!total.node && !partial) {
      return NoGradientError(x, bwd[x.node->id()], bp.blocked(), ForwardReach(g, {x}), span);
    }
    out.push_back(total);
  }
  return out;
}

}  // namespace

Result<std::vector<Output>> AddGradients(Graph& g, const std::vector<Output>& ys, const std::vector<Output>& xs,
                                         const std::vector<Output>& grad_ys, const SourceSpan& span) {
  return Differentiate(g, ys, xs, grad_ys, span, false);
}

Result<std::vector<Output>> AddGradientsPartial(Graph& g, const std::vector<Output>& ys,
                                                const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                                                const SourceSpan& span) {
  return Differentiate(g, ys, xs, grad_ys, span, true);
}

}  // namespace tfg
