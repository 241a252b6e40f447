// assert, assert_close, assert_equal: a failing check is an error with
// Code::kAborted at the call. Check-only mode skips them (run() returns
// zeros there, so the values mean nothing).
#include <cmath>

#include "interp/language/builtins/builtins.h"
#include "interp/language/value_equal.h"
#include "interp/language/value_arith.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

Status Failed(const BoundArgs& args, const std::string& what) {
  return Status(Code::kAborted, what, args.span);
}

std::string Indent(const std::string& text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += "      ";
  }
  return out;
}

Status NeedsHost(const BoundArgs& args, size_t i) {
  return Status(Code::kInvalidArgument,
                fmt::format("{}(): '{}' is {}; compare host values (run(x) gives one)", args.def->name,
                            args.def->params[i].name, Describe(args[i])),
                args.spans[i]);
}

Result<Value> Assert(BuiltinContext& ev, BoundArgs& args) {
  if (ev.options().check_only) return Value();
  if (ContainsGraph(args[0])) return NeedsHost(args, 0);
  auto ok = Truthy(args[0]);
  if (!ok.ok()) return Status(ok.status()).WithSpan(args.spans[0]);
  if (*ok) return Value();
  std::string msg = ToDisplayString(args[1]);
  return Failed(args, msg.empty() ? "assertion failed" : "assertion failed: " + msg);
}

// Host data as an f64 tensor, for numeric comparison.
Result<Tensor> AsF64(const BoundArgs& args, size_t i) {
  if (ContainsGraph(args[i])) return NeedsHost(args, i);
  // Host numbers convert straight to f64 (not through f32), tensors keep
  // their values.
  bool tensor = args[i].is(ValueKind::kTensor);
  auto t = ToTensor(args[i], tensor ? std::nullopt : std::optional<DType>(DType::kF64));
  if (!t.ok()) return Status(t.status()).WithSpan(args.spans[i]);
  if (!IsNumeric(t->dtype())) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}(): '{}' must be numeric, got {}", args.def->name, args.def->params[i].name,
                              t->DebugString()),
                  args.spans[i]);
  }
  return ConvertTensor(*t, DType::kF64);
}

// Flat offset into a tensor of `shape` for output index `idx` of the
// broadcast shape (size-1 dims repeat).
int64_t BroadcastOffset(const TensorShape& shape, const std::vector<int64_t>& idx) {
  int64_t offset = 0;
  int skip = static_cast<int>(idx.size()) - shape.rank();
  for (int d = 0; d < shape.rank(); ++d) {
    int64_t i = shape.dim(d) == 1 ? 0 : idx[skip + d];
    offset = offset * shape.dim(d) + i;
  }
  return offset;
}

std::vector<int64_t> Unravel(int64_t flat, const TensorShape& shape) {
  std::vector<int64_t> idx(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    idx[d] = shape.dim(d) == 0 ? 0 : flat % shape.dim(d);
    flat = shape.dim(d) == 0 ? 0 : flat / shape.dim(d);
  }
  return idx;
}

Result<Value> AssertClose(BuiltinContext& ev, BoundArgs& args) {
  if (ev.options().check_only) return Value();
  TFG_ASSIGN_OR_RETURN(Tensor a, AsF64(args, 0));
  TFG_ASSIGN_OR_RETURN(Tensor b, AsF64(args, 1));
  TFG_ASSIGN_OR_RETURN(double tol, NumberArg(args, 2));
  auto shape = BroadcastShapes(a.shape(), b.shape());
  if (!shape.ok()) {
    return Failed(args, fmt::format("assert_close failed: shapes {} and {} do not match", a.shape().ToString(),
                                    b.shape().ToString()));
  }
  int64_t bad = 0, worst_at = -1;
  double worst = -1;
  for (int64_t flat = 0; flat < shape->num_elements(); ++flat) {
    std::vector<int64_t> idx = Unravel(flat, *shape);
    double x = a.data<double>()[BroadcastOffset(a.shape(), idx)];
    double y = b.data<double>()[BroadcastOffset(b.shape(), idx)];
    if (x == y) continue;                           // also equal infinities
    if (std::isnan(x) && std::isnan(y)) continue;  // as NumPy's assert_allclose (equal_nan)
    double diff = std::fabs(x - y);
    if (diff <= tol + tol * std::fabs(y)) continue;
    ++bad;
    if (std::isnan(diff) || diff > worst) {
      worst = std::isnan(diff) ? INFINITY : diff;
      worst_at = flat;
    }
  }
  if (bad == 0) return Value();
  std::vector<int64_t> idx = Unravel(worst_at, *shape);
  std::string where = idx.empty() ? "" : " at index " + TensorShape(idx).ToString();
  const double x = a.data<double>()[BroadcastOffset(a.shape(), idx)];
  const double y = b.data<double>()[BroadcastOffset(b.shape(), idx)];
  // A NaN against a number ranks above every difference, and shows as nan.
  std::string msg = fmt::format(
      "assert_close failed: {} of {} element{} differ by more than tol={} (+ tol*|b|); the largest difference is "
      "{}{} ({} vs {})\n  a = {}\n  b = {}",
      bad, shape->num_elements(), shape->num_elements() == 1 ? "" : "s", FormatFloat(tol),
      FormatFloat(std::fabs(x - y)), where, FormatFloat(x), FormatFloat(y), Indent(Repr(args[0])),
      Indent(Repr(args[1])));
  return Failed(args, msg);
}

// Equality of a pair that is not two lists, regardless of numeric dtype:
// tensors against tensors, lists or numbers by shape and value; everything
// else as == compares it.
Result<bool> ValuesEqualLeaf(const Value& a, const Value& b) {
  bool tensor = a.is(ValueKind::kTensor) || b.is(ValueKind::kTensor);
  if (!tensor) return HostEquals(a, b);
  if (!IsHostData(a) || !IsHostData(b)) return false;
  TFG_ASSIGN_OR_RETURN(Tensor x, ToTensor(a));
  TFG_ASSIGN_OR_RETURN(Tensor y, ToTensor(b));
  if (x.shape() != y.shape()) return false;
  bool numeric = IsNumeric(x.dtype()) && IsNumeric(y.dtype());
  if (!numeric) return x.dtype() == y.dtype() && TensorsEqual(x, y);
  TFG_ASSIGN_OR_RETURN(Tensor xf, ConvertTensor(x, DType::kF64));
  TFG_ASSIGN_OR_RETURN(Tensor yf, ConvertTensor(y, DType::kF64));
  for (int64_t i = 0; i < xf.num_elements(); ++i) {
    if (xf.data<double>()[i] != yf.data<double>()[i]) return false;
  }
  return true;
}

// Lists are compared item by item, however deep (value_equal.h), so a
// list of host tensors equals a list of lists of the same numbers.
Result<bool> ValuesEqual(const Value& a, const Value& b) {
  return PairwiseEqual(a, b, /*dicts=*/false, ValuesEqualLeaf);
}

Result<Value> AssertEqual(BuiltinContext& ev, BoundArgs& args) {
  if (ev.options().check_only) return Value();
  for (size_t i = 0; i < 2; ++i) {
    if (ContainsGraph(args[i])) return NeedsHost(args, i);
  }
  auto same = ValuesEqual(args[0], args[1]);
  if (!same.ok()) return Status(same.status()).WithSpan(args.span);
  if (*same) return Value();
  std::string msg = ToDisplayString(args[2]);
  return Failed(args, fmt::format("assert_equal failed{}{}\n  a = {}\n  b = {}", msg.empty() ? "" : ": ", msg,
                                  Indent(Repr(args[0])), Indent(Repr(args[1]))));
}

const BuiltinRegistrar kAssertBuiltins({
    {"assert", {{"cond", std::nullopt}, {"msg", Value::Str("")}},
     "Fails the script (exit 1) with msg unless cond is true.", Assert},
    {"assert_close", {{"a", std::nullopt}, {"b", std::nullopt}, {"tol", Value::Float(1e-6)}},
     "Fails unless |a - b| <= tol + tol*|b| element-wise (shapes broadcast; NaN matches NaN); prints both values.",
     AssertClose},
    {"assert_equal", {{"a", std::nullopt}, {"b", std::nullopt}, {"msg", Value::Str("")}},
     "Fails unless a equals b: numbers and tensors by value whatever their dtype, strings and lists exactly.",
     AssertEqual},
});

}  // namespace
}  // namespace tfg
