// Graph building: nodes with the `with` scopes applied, host values as
// constants, variable reads, eager runs.
#include "interp/language/control_flow.h"
#include "interp/runtime/session.h"
#include "interp/language/value_walk.h"
#include "interp/language/evaluator.h"
#include "interp/language/value_convert.h"

namespace tfg {

Result<Node*> Evaluator::AddNode(NodeSpec spec, BuildOptions opts) {
  // A ':' would make "x:1" read as output 1 of x in a tensor name.
  if (Status s = CheckNodeName(spec.name); !s.ok()) return s.WithSpan(spec.span);
  if (spec.name.empty()) spec.name = spec.op;
  if (opts.apply_scope_name) spec.name = scopes_.ScopedName(spec.name);
  if (opts.apply_device && spec.device.empty()) spec.device = scopes_.device();
  if (opts.apply_deps) {
    for (Node* n : scopes_.control_deps()) spec.control_inputs.push_back(n);
  }
  if (library_caller_.valid() && InLibrary(spec.span)) spec.span = library_caller_;
  SourceSpan span = spec.span;
  ControlFlowContext* context = control_flow_;
  if (context) TFG_RETURN_IF_ERROR(context->Prepare(*this, spec));
  Result<Node*> node = Status::OK();
  {
    std::unique_lock<std::shared_mutex> lock(session_->graph_mutex());
    node = graph_.AddNode(std::move(spec));
  }
  if (!node.ok()) return Status(node.status()).WithSpan(span);
  if (context) context->AddMember(*node);
  return *node;
}

std::string Evaluator::FreshName(const std::string& base) const {
  if (!graph_.FindNode(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!graph_.FindNode(candidate)) return candidate;
  }
}

Result<Output> Evaluator::AddConstant(const Tensor& t, const SourceSpan& span, const std::string& name,
                                      BuildOptions opts) {
  if (control_flow_ && control_flow_->kind() == ControlFlowContext::Kind::kWhile && opts.apply_deps &&
      scopes_.control_deps().empty()) {
    // Built once outside the loop and entered as an invariant, not
    // recomputed every iteration.
    ControlFlowContext* loop = control_flow_;
    control_flow_ = loop->outer();
    auto outside = AddConstant(t, span, name, opts);
    control_flow_ = loop;
    if (!outside.ok()) return outside.status();
    return loop->Capture(*this, *outside, span);
  }
  NodeSpec spec;
  spec.op = "constant";
  spec.attrs["value"] = t;
  spec.attrs["dtype"] = t.dtype();
  spec.name = name.empty() ? "constant" : name;
  spec.span = span;
  TFG_ASSIGN_OR_RETURN(Node* node, AddNode(std::move(spec), opts));
  return node->output(0);
}

Result<Output> Evaluator::ReadVariable(const VariableInfo& var, const SourceSpan& span) {
  if (scopes_.control_deps().empty() && !(control_flow_ && control_flow_->InsideLoop())) return var.output();
  // Inside `with deps(...)` a read must wait for the deps: a fresh read node
  // of the same variable carries them as control inputs. Inside a loop a
  // read happens every iteration (the body may assign the variable). (A
  // cond branch switches the outer read in, so its gradient can flow back
  // through the switch.)
  NodeSpec spec;
  spec.op = var.node->op_name();
  spec.attrs = var.node->attrs();
  spec.name = FreshName(var.node->name() + "/read");
  spec.device = var.node->requested_device();
  spec.span = span;
  BuildOptions opts;
  opts.apply_scope_name = false;
  TFG_ASSIGN_OR_RETURN(Node* node, AddNode(std::move(spec), opts));
  return node->output(0);
}

Result<Output> Evaluator::ToOutput(const Value& v, std::optional<DType> dtype, const SourceSpan& span) {
  switch (v.kind()) {
    case ValueKind::kGraphTensor: return v.as_output();
    case ValueKind::kVariable: return ReadVariable(*v.as_variable(), span);
    case ValueKind::kOp:
      return Status(Code::kInvalidArgument,
                    fmt::format("the op '{}' has no value to use as a tensor (it is run for its effect)",
                                v.as_op()->name()),
                    span);
    default: break;
  }
  if (!IsHostData(v)) {
    if (ContainsGraph(v)) {
      return Status(Code::kInvalidArgument,
                    "a list holding graph tensors is not a tensor; combine them with stack([...]) or concat([...], axis)",
                    span);
    }
    return Status(Code::kInvalidArgument, fmt::format("{} cannot be converted to a tensor", Describe(v)), span);
  }
  auto t = ToTensor(v, dtype);
  if (!t.ok()) return Status(t.status()).WithSpan(span);
  return AddConstant(*t, span);
}

Result<std::vector<Node*>> Evaluator::ControlNodes(const Value& v, const SourceSpan& span) {
  // The nodes of `v` and of the lists it nests; a list that holds itself
  // adds its nodes once.
  std::vector<Node*> nodes;
  NestedWalk walk(v, /*dict_values=*/false);
  while (const Value* item = walk.Next()) {
    switch (item->kind()) {
      case ValueKind::kNone:
      case ValueKind::kList: break;
      case ValueKind::kGraphTensor: nodes.push_back(item->as_output().node); break;
      case ValueKind::kOp: nodes.push_back(item->as_op()); break;
      case ValueKind::kVariable: nodes.push_back(item->as_variable()->node); break;
      default:
        return Status(Code::kInvalidArgument,
                      fmt::format("control dependencies must be graph tensors, ops or variables; got {}",
                                  Describe(*item)),
                      span);
    }
  }
  return nodes;
}

Result<std::vector<Tensor>> Evaluator::RunEager(const OpDef& op, AttrMap attrs, const std::vector<Tensor>& inputs,
                                                const SourceSpan& span) {
  auto results = session_->RunEager(op, std::move(attrs), inputs, span);
  if (!results.ok()) return Status(results.status()).WithSpan(span);
  return std::move(*results);
}

}  // namespace tfg
