// Expressions: literals, names, containers, attributes, `and`/`or`, lambdas.
#include "interp/language/evaluator.h"

#include <algorithm>

#include "interp/language/attribute_names.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/number_list_value.h"
#include "interp/runtime/colocation.h"
#include "interp/language/value_convert.h"
#include "ops/core/suggest.h"

namespace tfg {

namespace {

constexpr int kMaxEvalDepth = 3000;

// Counts nesting of Eval so absurdly deep expressions fail cleanly instead
// of overflowing the stack.
class DepthGuard {
 public:
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  bool exceeded() const { return depth_ > kMaxEvalDepth; }

 private:
  int& depth_;
};

Value ShapeValue(const PartialShape& shape) {
  if (!shape.known_rank()) return Value();
  std::vector<Value> dims;
  for (int64_t d : shape.dims()) dims.push_back(d < 0 ? Value() : Value::Int(d));
  return Value::NewList(std::move(dims));
}

std::optional<Value> TensorAttribute(const std::string& name, DType dtype, const PartialShape& shape) {
  if (name == "shape") return ShapeValue(shape);
  if (name == "dtype") return Value::Type(dtype);
  if (name == "ndim") return shape.known_rank() ? Value::Int(shape.rank()) : Value();
  if (name == "size") return shape.fully_defined() ? Value::Int(shape.num_elements()) : Value();
  return std::nullopt;
}

std::optional<Value> GraphAttribute(const Value& v, const std::string& name) {
  Output o = v.graph_output();
  if (auto a = TensorAttribute(name, o.dtype(), o.shape())) return a;
  if (name == "name") return Value::Str(OutputName(o));
  if (name == "op") return Value::Op(o.node);
  if (name == "device") return Value::Str(SplitDeviceRequest(o.node->requested_device()).device);
  if (v.is(ValueKind::kVariable)) {
    const VariableInfo& var = *v.as_variable();
    if (name == "initializer") return Value::Op(var.init);
    if (name == "trainable") return Value::Bool(var.trainable);
  }
  return std::nullopt;
}

const char* AttributesOf(ValueKind k) {
  switch (k) {
    case ValueKind::kGraphTensor: return "shape, dtype, ndim, size, name, op, device";
    case ValueKind::kVariable: return "shape, dtype, ndim, size, name, op, device, initializer, trainable";
    case ValueKind::kTensor: return "shape, dtype, ndim, size";
    case ValueKind::kOp: return "name, device";
    case ValueKind::kFunction:
    case ValueKind::kBuiltin:
    case ValueKind::kOpFunction:
    case ValueKind::kDType: return "name";
    default: return "";
  }
}

}  // namespace

std::vector<std::string> AttributeNames(const Value& v) {
  std::vector<std::string> names;
  if (v.is(ValueKind::kModule)) {
    for (const auto& [name, value] : v.as_module()->globals->vars) {
      if (!name.empty() && name[0] != '_') names.push_back(name);
    }
  } else {
    std::string_view list = AttributesOf(v.kind());
    while (!list.empty()) {
      const size_t comma = list.find(", ");
      names.emplace_back(list.substr(0, comma));
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 2);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

std::optional<Value> ObjectAttribute(const Value& v, const std::string& name) {
  switch (v.kind()) {
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable: return GraphAttribute(v, name);
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      return TensorAttribute(name, t.dtype(), PartialShape(t.shape()));
    }
    case ValueKind::kOp:
      if (name == "name") return Value::Str(v.as_op()->name());
      if (name == "device") return Value::Str(SplitDeviceRequest(v.as_op()->requested_device()).device);
      break;
    case ValueKind::kFunction:
      if (name == "name") return Value::Str(v.as_function()->def->name);
      break;
    case ValueKind::kBuiltin:
      if (name == "name") return Value::Str(v.as_builtin()->name);
      break;
    case ValueKind::kOpFunction:
      if (name == "name") return Value::Str(v.as_op_function()->name);
      break;
    case ValueKind::kDType:
      if (name == "name") return Value::Str(std::string(DTypeName(v.as_dtype())));
      break;
    case ValueKind::kContext:
      if (name == "name") return Value::Str(v.as_context().text);
      break;
    default: break;
  }
  return std::nullopt;
}

}  // namespace

Result<Value> Evaluator::Eval(const ast::Expr& e, const std::shared_ptr<Env>& env) {
  DepthGuard guard(eval_depth_);
  if (guard.exceeded()) return Status(Code::kResourceExhausted, "expression nested too deeply", e.span);
  switch (e.kind) {
    case ast::ExprKind::kInt: return Value::Int(static_cast<const ast::IntLit&>(e).value);
    case ast::ExprKind::kFloat: return Value::Float(static_cast<const ast::FloatLit&>(e).value);
    case ast::ExprKind::kString: return Value::Str(static_cast<const ast::StringLit&>(e).value);
    case ast::ExprKind::kBool: return Value::Bool(static_cast<const ast::BoolLit&>(e).value);
    case ast::ExprKind::kNone:
    case ast::ExprKind::kUnknownDim: return Value();  // `?` is none: an unknown dimension
    case ast::ExprKind::kName: return LookupName(static_cast<const ast::Name&>(e).id, env, e.span);
    case ast::ExprKind::kList: return EvalList(static_cast<const ast::ListLit&>(e), env);
    case ast::ExprKind::kNumberList: return NumberListValue(static_cast<const ast::NumberList&>(e));
    case ast::ExprKind::kDict: return EvalDict(static_cast<const ast::DictLit&>(e), env);
    case ast::ExprKind::kUnary: {
      const auto& u = static_cast<const ast::Unary&>(e);
      TFG_ASSIGN_OR_RETURN(Value x, Eval(*u.operand, env));
      return Unary(u.op, x, e.span);
    }
    case ast::ExprKind::kBinary: {
      const auto& b = static_cast<const ast::Binary&>(e);
      if (b.op == ast::BinaryOp::kAnd || b.op == ast::BinaryOp::kOr) return EvalLogical(b, env);
      TFG_ASSIGN_OR_RETURN(Value lhs, Eval(*b.lhs, env));
      TFG_ASSIGN_OR_RETURN(Value rhs, Eval(*b.rhs, env));
      return Binary(b.op, lhs, rhs, e.span);
    }
    case ast::ExprKind::kCall: return EvalCall(static_cast<const ast::Call&>(e), env);
    case ast::ExprKind::kAttribute: return EvalAttribute(static_cast<const ast::Attribute&>(e), env);
    case ast::ExprKind::kIndex: return EvalIndex(static_cast<const ast::Index&>(e), env);
    case ast::ExprKind::kLambda: return MakeFunction(static_cast<const ast::Lambda&>(e).def, env);
    case ast::ExprKind::kListComp:
    case ast::ExprKind::kDictComp: return EvalComprehension(static_cast<const ast::Comprehension&>(e), env);
    case ast::ExprKind::kFString: return EvalFString(static_cast<const ast::FString&>(e), env);
  }
  return Status(Code::kInternal, "unknown expression kind", e.span);
}

Result<Value> Evaluator::EvalList(const ast::ListLit& e, const std::shared_ptr<Env>& env) {
  std::vector<Value> items;
  items.reserve(e.elements.size());
  for (const ast::ExprPtr& el : e.elements) {
    TFG_ASSIGN_OR_RETURN(Value v, Eval(*el, env));
    items.push_back(std::move(v));
  }
  return Value::NewList(std::move(items));
}

Result<Value> Evaluator::EvalDict(const ast::DictLit& e, const std::shared_ptr<Env>& env) {
  Value dict = Value::NewDict();
  for (size_t i = 0; i < e.keys.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(Value k, Eval(*e.keys[i], env));
    TFG_ASSIGN_OR_RETURN(Value v, Eval(*e.values[i], env));
    Status s = dict.as_dict().Set(k, std::move(v));
    if (!s.ok()) return s.WithSpan(e.keys[i]->span);
  }
  return dict;
}

// `a and b`, `a or b`: short-circuit on host values (Python: the result is
// one of the operands); element-wise logical ops on tensors.
Result<Value> Evaluator::EvalLogical(const ast::Binary& e, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value lhs, Eval(*e.lhs, env));
  if (lhs.is_graph() || lhs.is(ValueKind::kTensor)) {
    TFG_ASSIGN_OR_RETURN(Value rhs, Eval(*e.rhs, env));
    return Binary(e.op, lhs, rhs, e.span);
  }
  auto truth = Truthy(lhs);
  if (!truth.ok()) return Status(truth.status()).WithSpan(e.lhs->span);
  bool is_and = e.op == ast::BinaryOp::kAnd;
  if (*truth != is_and) return lhs;  // `false and x`, `true or x`
  return Eval(*e.rhs, env);
}

Result<Value> Evaluator::EvalAttribute(const ast::Attribute& e, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value obj, Eval(*e.object, env));
  if (obj.is(ValueKind::kModule)) {
    const Module& m = *obj.as_module();
    auto it = m.globals->vars.find(e.name);
    if (it != m.globals->vars.end()) return it->second;
    std::vector<std::string> names;
    for (const auto& [name, v] : m.globals->vars) names.push_back(name);
    std::string msg = fmt::format("module '{}' has no name '{}'", m.name, e.name);
    std::string best = ClosestName(e.name, names);
    if (!best.empty()) msg += fmt::format("; did you mean '{}'?", best);
    return Status(Code::kNotFound, msg, e.span);
  }
  if (auto v = ObjectAttribute(obj, e.name)) return *v;
  std::string has = AttributesOf(obj.kind());
  std::string msg = fmt::format("{} has no attribute '{}'", Describe(obj), e.name);
  if (!has.empty()) msg += " (it has: " + has + ")";
  return Status(Code::kInvalidArgument, msg, e.span);
}

Result<Value> Evaluator::MakeFunction(const std::shared_ptr<ast::FunctionDef>& def, const std::shared_ptr<Env>& env) {
  auto fn = std::make_shared<Function>();
  fn->def = def;
  fn->closure = env;
  for (const ast::Param& p : def->params) {
    if (!p.default_value) {
      fn->defaults.emplace_back(std::nullopt);
      continue;
    }
    TFG_ASSIGN_OR_RETURN(Value v, Eval(*p.default_value, env));
    fn->defaults.emplace_back(std::move(v));
  }
  TrackClosureScope(env);
  return Value::Fn(std::move(fn));
}

}  // namespace tfg
