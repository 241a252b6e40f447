// Operators: Python semantics on host scalars, ops on tensors (eager on host
// tensors and lists, nodes on graph tensors).
#include "interp/language/evaluator.h"
#include "interp/language/string_format.h"
#include "interp/language/value_arith.h"
#include "interp/language/value_convert.h"

namespace tfg {

using ast::BinaryOp;
using ast::UnaryOp;

namespace {

const char* OpNameFor(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kFloorDiv: return "floordiv";
    case BinaryOp::kMod: return "mod";
    case BinaryOp::kMatMul: return "matmul";
    case BinaryOp::kPow: return "pow";
    case BinaryOp::kLt: return "less";
    case BinaryOp::kLe: return "less_equal";
    case BinaryOp::kGt: return "greater";
    case BinaryOp::kGe: return "greater_equal";
    case BinaryOp::kEq: return "equal";
    case BinaryOp::kNe: return "not_equal";
    case BinaryOp::kAnd: return "logical_and";
    case BinaryOp::kOr: return "logical_or";
    case BinaryOp::kIn:
    case BinaryOp::kNotIn: break;  // no op: membership is a host test
  }
  return "?";
}

bool IsTensorLike(const Value& v) { return v.is_graph() || v.is(ValueKind::kTensor); }

std::string OperatorLabel(BinaryOp op) {
  return fmt::format("'{}' ({})", ast::BinaryOpSymbol(op), OpNameFor(op));
}

// The dtype both operands of a tensor operator take: a graph operand's, else
// a host tensor's, else the host values' common default.
std::optional<DType> CommonDType(const Value& a, const Value& b) {
  for (const Value* v : {&a, &b}) {
    if (v->is_graph()) return v->graph_output().dtype();
  }
  for (const Value* v : {&a, &b}) {
    if (v->is(ValueKind::kTensor)) return v->as_tensor().dtype();
  }
  auto da = DefaultDType(a), db = DefaultDType(b);
  if (!da.ok() || !db.ok()) return std::nullopt;
  if (*da == *db) return *da;
  if (IsFloat(*da) && IsInteger(*db)) return *da;
  if (IsInteger(*da) && IsFloat(*db)) return *db;
  if (IsInteger(*da) && IsInteger(*db)) return DType::kI64;
  return std::nullopt;
}

// Checks operand dtypes up front so the error names the operator and both
// dtypes, as TensorFlow does.
Status CheckOperands(BinaryOp op, const Value& a, const Value& b) {
  if (a.is_graph() && b.is_graph()) {
    DType da = a.graph_output().dtype(), db = b.graph_output().dtype();
    if (da != db) {
      return InvalidArgument("{}: operands have different dtypes, {} and {}; convert one with cast(x, {})",
                             OperatorLabel(op), DTypeName(da), DTypeName(db), DTypeName(da));
    }
    return Status::OK();
  }
  const Value* graph = a.is_graph() ? &a : b.is_graph() ? &b : nullptr;
  const Value* host = a.is_graph() ? &b : &a;
  if (graph == nullptr || !IsHostData(*host)) return Status::OK();
  DType want = graph->graph_output().dtype();
  auto converted = ToTensor(*host, want);
  if (converted.ok()) return Status::OK();
  auto host_dtype = DefaultDType(*host);
  std::string host_desc = host->is(ValueKind::kTensor) ? Describe(*host)
                          : host->is(ValueKind::kList) ? "a host list"
                                                       : fmt::format("the {} {}", KindName(host->kind()), Repr(*host));
  std::string_view article = IsInteger(want) ? "an" : "a";
  return InvalidArgument("{}: cannot combine {} {} tensor with {} ({}): {}", OperatorLabel(op), article,
                         DTypeName(want), host_desc, host_dtype.ok() ? DTypeName(*host_dtype) : "?",
                         converted.status().message());
}

// `item in container`, as Python: an equal item of a list, a key of a dict,
// a substring of a string, a number of a range, an element of a host tensor.
Result<bool> Contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case ValueKind::kList:
      for (const Value& x : container.as_list().items) {
        if (HostEquals(x, item)) return true;
      }
      return false;
    case ValueKind::kDict: {
      if (item.is(ValueKind::kList) || item.is(ValueKind::kDict)) return false;
      return container.as_dict().Find(item) != nullptr;
    }
    case ValueKind::kString:
      if (!item.is(ValueKind::kString)) {
        return InvalidArgument("'in <string>' needs a string on the left, not {}", Describe(item));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case ValueKind::kRange: {
      std::optional<int64_t> n = AsHostInt(item);
      if (!n) return false;
      const Range& r = container.as_range();
      int64_t size = r.size();
      if (size == 0) return false;
      __int128 offset = static_cast<__int128>(*n) - r.start;
      return offset % r.step == 0 && offset / r.step >= 0 && offset / r.step < size;
    }
    case ValueKind::kTensor: {
      const Tensor& t = container.as_tensor();
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        if (HostEquals(TensorElement(t, i), item)) return true;
      }
      return false;
    }
    default:
      if (container.is_graph() || item.is_graph()) {
        return InvalidArgument("'in' tests host values; run(...) the graph tensor first");
      }
      return InvalidArgument("'in' needs a list, dict, string, range or host tensor on the right, not {}",
                             Describe(container));
  }
}

CallArgs Args(const Value& a, const Value& b) {
  CallArgs args;
  args.Add(a);
  args.Add(b);
  return args;
}

}  // namespace

Result<Value> Evaluator::Binary(BinaryOp op, const Value& a, const Value& b, const SourceSpan& span) {
  if (op == BinaryOp::kMod && a.is(ValueKind::kString)) {
    auto text = PercentFormat(a.as_string(), b);
    if (!text.ok()) return Status(text.status()).WithSpan(span);
    return Value::Str(std::move(*text));
  }
  if (op == BinaryOp::kIn || op == BinaryOp::kNotIn) {
    auto found = Contains(b, a);
    if (!found.ok()) return Status(found.status()).WithSpan(span);
    return Value::Bool(*found == (op == BinaryOp::kIn));
  }
  if (IsHostScalar(a) && IsHostScalar(b)) {
    auto r = HostBinary(op, a, b);
    if (!r.ok()) return Status(r.status()).WithSpan(span);
    return r;
  }
  bool equality = op == BinaryOp::kEq || op == BinaryOp::kNe;
  if (equality && (a.is_none() || b.is_none() || (!IsTensorLike(a) && !IsTensorLike(b)))) {
    return Value::Bool(HostEquals(a, b) == (op == BinaryOp::kEq));
  }
  Status check = CheckOperands(op, a, b);
  if (!check.ok()) return check.WithSpan(span);
  if (op == BinaryOp::kDiv) {
    // TensorFlow's truediv: integer operands are divided as f64.
    std::optional<DType> common = CommonDType(a, b);
    if (common && IsInteger(*common)) {
      Value x = a, y = b;
      for (Value* v : {&x, &y}) {
        if (v->is_graph()) {
          CallArgs cast;
          cast.Add(*v);
          cast.Add(Value::Type(DType::kF64));
          TFG_ASSIGN_OR_RETURN(*v, CallOpByName("cast", std::move(cast), span));
        } else {
          auto t = ToTensor(*v, DType::kF64);
          if (!t.ok()) return Status(t.status()).WithSpan(span);
          *v = Value::HostTensor(*t);
        }
      }
      return CallOpByName("div", Args(x, y), span);
    }
  }
  return CallOpByName(OpNameFor(op), Args(a, b), span);
}

Result<Value> Evaluator::Unary(UnaryOp op, const Value& x, const SourceSpan& span) {
  if (IsHostScalar(x) || (op == UnaryOp::kNot && !IsTensorLike(x))) {
    auto r = HostUnary(op, x);
    if (!r.ok()) return Status(r.status()).WithSpan(span);
    return r;
  }
  CallArgs args;
  args.Add(x);
  switch (op) {
    case UnaryOp::kNeg: return CallOpByName("neg", std::move(args), span);
    case UnaryOp::kNot: return CallOpByName("logical_not", std::move(args), span);
    case UnaryOp::kPos:
      if (IsTensorLike(x) || IsHostData(x)) return x;
      break;
  }
  return Status(Code::kInvalidArgument,
                fmt::format("unary '{}' is not supported for {}", ast::UnaryOpSymbol(op), Describe(x)), span);
}

}  // namespace tfg
