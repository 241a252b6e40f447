// Evaluator::CallOp: eager evaluation or node building for a bound op call.
#include "interp/language/op_call.h"
#include "interp/language/evaluator.h"
#include "interp/language/value_convert.h"

namespace tfg {

namespace {

bool AllHost(const BoundOpCall& call) {
  for (const auto& v : call.inputs) {
    if (v && ContainsGraph(*v)) return false;
  }
  return true;
}

// Ops that always build nodes even on host inputs: state, randomness, and
// ops run for their effect.
bool AlwaysBuildsNode(const OpDef& op) {
  return op.stateful || op.outputs.empty() || op.name == "constant";
}

Status ConversionError(const OpDef& op, const ArgDef& arg, const InputDType& want, const Status& s,
                       const SourceSpan& span) {
  std::string msg = fmt::format("{}: input '{}': {}", op.name, arg.name, s.message());
  if (!want.source.empty() && want.source != arg.type + "=") msg += fmt::format(" (the dtype of {})", want.source);
  return Status(s.code(), msg, span);
}

// The tensors an input stands for: a list input's elements, else the value.
Result<std::vector<Value>> InputValues(const OpDef& op, const ArgDef& arg, const Value& v, const SourceSpan& span) {
  if (!arg.is_list) return std::vector<Value>{v};
  if (!v.is(ValueKind::kList)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: input '{}' takes a list of tensors, got {}", op.name, arg.name, Describe(v)), span);
  }
  return v.as_list().items;
}

Value WrapEager(const OpDef& op, std::vector<Tensor> results) {
  if (!ReturnsList(op) && results.size() == 1) return Value::HostTensor(std::move(results[0]));
  std::vector<Value> items;
  for (Tensor& t : results) items.push_back(Value::HostTensor(std::move(t)));
  return Value::NewList(std::move(items));
}

Value WrapNode(const OpDef& op, Node* node) {
  if (node->num_outputs() == 0 && op.outputs.empty()) return Value::Op(node);
  if (!ReturnsList(op)) return Value::Graph(node->output(0));
  std::vector<Value> items;
  for (int i = 0; i < node->num_outputs(); ++i) items.push_back(Value::Graph(node->output(i)));
  return Value::NewList(std::move(items));
}

}  // namespace

Result<Value> Evaluator::CallOpByName(const std::string& op, CallArgs args, const SourceSpan& span) {
  const OpDef* def = OpRegistry::Global().Find(op);
  if (!def) return Status(Code::kUnimplemented, fmt::format("op '{}' is not available in this build", op), span);
  return CallOp(*def, std::move(args), span);
}

Result<Value> Evaluator::CallOp(const OpDef& op, CallArgs args, const SourceSpan& span) {
  // where(cond) alone is TensorFlow's one-argument tf.where: the coordinates
  // of cond's true elements, which op argwhere gives.
  if (op.name == "where") {
    size_t given = args.positional.size();
    bool only_cond = true;
    for (const auto& [name, v] : args.keywords) {
      if (name == "cond") ++given;
      else if (name != "name") only_cond = false;
    }
    if (only_cond && given == 1) return CallOpByName("argwhere", std::move(args), span);
  }
  TFG_ASSIGN_OR_RETURN(BoundOpCall call, BindOpCall(op, args, span));
  TFG_ASSIGN_OR_RETURN(std::vector<InputDType> want, ResolveInputDTypes(call));
  bool eager = AllHost(call) && !AlwaysBuildsNode(op);

  std::vector<Tensor> tensors;  // eager inputs
  NodeSpec spec;                // graph inputs and the rest of the node
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const ArgDef& arg = op.inputs[i];
    TFG_ASSIGN_OR_RETURN(std::vector<Value> values, InputValues(op, arg, *call.inputs[i], span));
    for (const Value& v : values) {
      if (eager) {
        auto t = ToTensor(v, want[i].dtype);
        if (!t.ok()) return ConversionError(op, arg, want[i], t.status(), span);
        tensors.push_back(std::move(*t));
      } else {
        auto out = ToOutput(v, want[i].dtype, span);
        if (!out.ok()) return ConversionError(op, arg, want[i], out.status(), span);
        spec.inputs.push_back(*out);
      }
    }
  }
  if (eager) {
    TFG_ASSIGN_OR_RETURN(std::vector<Tensor> results, RunEager(op, call.attrs, tensors, span));
    return WrapEager(op, std::move(results));
  }
  spec.op = op.name;
  spec.attrs = std::move(call.attrs);
  spec.name = call.name.value_or(op.name);
  spec.span = span;
  TFG_ASSIGN_OR_RETURN(Node* node, AddNode(std::move(spec)));
  return WrapNode(op, node);
}

}  // namespace tfg
