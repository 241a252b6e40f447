#include "interp/language/value_arith.h"

#include <cmath>
#include <limits>
#include <utility>

#include "interp/language/value_equal.h"
#include "interp/language/value_convert.h"

namespace tfg {

using ast::BinaryOp;
using ast::UnaryOp;

bool IsHostScalar(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kString: return true;
    default: return false;
  }
}

namespace {

bool IsNum(const Value& v) { return v.is_number() || v.is(ValueKind::kBool); }
int64_t IntOf(const Value& v) { return v.is(ValueKind::kBool) ? (v.as_bool() ? 1 : 0) : v.as_int(); }
double FloatOf(const Value& v) { return v.is(ValueKind::kFloat) ? v.as_float() : static_cast<double>(IntOf(v)); }

Status Unsupported(BinaryOp op, const Value& a, const Value& b) {
  return InvalidArgument("'{}' is not supported between {} and {}", ast::BinaryOpSymbol(op), Describe(a),
                         Describe(b));
}

Status Overflow(BinaryOp op, int64_t a, int64_t b) {
  return OutOfRange("integer overflow in {} {} {} (ints are 64-bit)", a, ast::BinaryOpSymbol(op), b);
}

// Python's float floor division: the quotient of x - (x mod y), which is
// exact where floor(x / y) may round across an integer.
double FloorDivide(double x, double y) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0 && (y < 0) != (mod < 0)) div -= 1.0;
  if (div == 0) return std::copysign(0.0, x / y);
  double floor_div = std::floor(div);
  return div - floor_div > 0.5 ? floor_div + 1.0 : floor_div;
}

Result<Value> FloatArith(BinaryOp op, double x, double y) {
  switch (op) {
    case BinaryOp::kAdd: return Value::Float(x + y);
    case BinaryOp::kSub: return Value::Float(x - y);
    case BinaryOp::kMul: return Value::Float(x * y);
    case BinaryOp::kDiv:
      if (y == 0) return InvalidArgument("division by zero");
      return Value::Float(x / y);
    case BinaryOp::kFloorDiv:
      if (y == 0) return InvalidArgument("division by zero");
      return Value::Float(FloorDivide(x, y));
    case BinaryOp::kMod: {
      if (y == 0) return InvalidArgument("modulo by zero");
      // As Python: the result takes the divisor's sign, a zero too.
      double m = std::fmod(x, y);
      if (m == 0) return Value::Float(std::copysign(0.0, y));
      if ((m < 0) != (y < 0)) m += y;
      return Value::Float(m);
    }
    case BinaryOp::kPow:
      if (x == 0 && y < 0) return InvalidArgument("0.0 cannot be raised to a negative power");
      return Value::Float(std::pow(x, y));
    default: return Internal("not an arithmetic operator");
  }
}

Result<Value> IntPow(int64_t base, int64_t exp) {
  if (exp < 0) return FloatArith(BinaryOp::kPow, static_cast<double>(base), static_cast<double>(exp));
  int64_t result = 1;
  int64_t b = base;
  for (int64_t e = exp; e > 0; e >>= 1) {
    if (e & 1) {
      if (__builtin_mul_overflow(result, b, &result)) return Overflow(BinaryOp::kPow, base, exp);
    }
    if (e > 1 && __builtin_mul_overflow(b, b, &b)) return Overflow(BinaryOp::kPow, base, exp);
  }
  return Value::Int(result);
}

Result<Value> IntArith(BinaryOp op, int64_t x, int64_t y) {
  int64_t r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(x, y, &r)) return Overflow(op, x, y);
      return Value::Int(r);
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(x, y, &r)) return Overflow(op, x, y);
      return Value::Int(r);
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(x, y, &r)) return Overflow(op, x, y);
      return Value::Int(r);
    case BinaryOp::kDiv:
      if (y == 0) return InvalidArgument("division by zero");
      return Value::Float(static_cast<double>(x) / static_cast<double>(y));
    case BinaryOp::kFloorDiv: {
      if (y == 0) return InvalidArgument("division by zero");
      if (y == -1) {
        if (__builtin_mul_overflow(x, int64_t{-1}, &r)) return Overflow(op, x, y);
        return Value::Int(r);
      }
      int64_t q = x / y;  // truncated; Python rounds toward negative infinity
      if (x % y != 0 && (x < 0) != (y < 0)) --q;
      return Value::Int(q);
    }
    case BinaryOp::kMod: {
      if (y == 0) return InvalidArgument("modulo by zero");
      if (y == -1) return Value::Int(0);  // avoids INT64_MIN % -1
      int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return Value::Int(m);
    }
    case BinaryOp::kPow: return IntPow(x, y);
    default: return Internal("not an arithmetic operator");
  }
}

template <typename T>
bool Compare(BinaryOp op, const T& x, const T& y) {
  switch (op) {
    case BinaryOp::kLt: return x < y;
    case BinaryOp::kLe: return x <= y;
    case BinaryOp::kGt: return x > y;
    case BinaryOp::kGe: return x >= y;
    case BinaryOp::kEq: return x == y;
    case BinaryOp::kNe: return x != y;
    default: return false;
  }
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kLt || op == BinaryOp::kLe || op == BinaryOp::kGt || op == BinaryOp::kGe ||
         op == BinaryOp::kEq || op == BinaryOp::kNe;
}

Result<Value> StringBinary(BinaryOp op, const Value& a, const Value& b) {
  if (a.is(ValueKind::kString) && b.is(ValueKind::kString)) {
    if (op == BinaryOp::kAdd) return Value::Str(a.as_string() + b.as_string());
    if (IsComparison(op)) return Value::Bool(Compare(op, a.as_string(), b.as_string()));
  }
  if (op == BinaryOp::kMul) {
    const Value& s = a.is(ValueKind::kString) ? a : b;
    const Value& n = a.is(ValueKind::kString) ? b : a;
    if (n.is(ValueKind::kInt)) {
      constexpr double kMaxLength = 1 << 28;
      double length = static_cast<double>(n.as_int()) * static_cast<double>(s.as_string().size());
      if (length > kMaxLength) return OutOfRange("string repetition too long ({} characters)", length);
      std::string out;
      for (int64_t i = 0; i < n.as_int(); ++i) out += s.as_string();
      return Value::Str(std::move(out));
    }
  }
  return Unsupported(op, a, b);
}

}  // namespace

Result<Value> HostBinary(BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::kEq) return Value::Bool(HostEquals(a, b));
  if (op == BinaryOp::kNe) return Value::Bool(!HostEquals(a, b));
  if (a.is(ValueKind::kString) || b.is(ValueKind::kString)) return StringBinary(op, a, b);
  if (!IsNum(a) || !IsNum(b) || op == BinaryOp::kMatMul || op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    return Unsupported(op, a, b);
  }
  bool floats = a.is(ValueKind::kFloat) || b.is(ValueKind::kFloat);
  if (IsComparison(op)) {
    if (floats) return Value::Bool(Compare(op, FloatOf(a), FloatOf(b)));
    return Value::Bool(Compare(op, IntOf(a), IntOf(b)));
  }
  if (floats) return FloatArith(op, FloatOf(a), FloatOf(b));
  return IntArith(op, IntOf(a), IntOf(b));
}

Result<Value> HostUnary(UnaryOp op, const Value& x) {
  if (op == UnaryOp::kNot) {
    TFG_ASSIGN_OR_RETURN(bool t, Truthy(x));
    return Value::Bool(!t);
  }
  if (!IsNum(x)) {
    return InvalidArgument("unary '{}' is not supported for {}", ast::UnaryOpSymbol(op), Describe(x));
  }
  if (x.is(ValueKind::kFloat)) return Value::Float(op == UnaryOp::kNeg ? -x.as_float() : x.as_float());
  int64_t i = IntOf(x);
  if (op == UnaryOp::kPos) return Value::Int(i);
  if (i == std::numeric_limits<int64_t>::min()) return OutOfRange("integer overflow in -{}", i);
  return Value::Int(-i);
}

namespace {

// == on a pair that is not two lists or two dicts.
bool LeafEquals(const Value& a, const Value& b) {
  if (IsNum(a) && IsNum(b)) {
    if (a.is(ValueKind::kFloat) || b.is(ValueKind::kFloat)) return FloatOf(a) == FloatOf(b);
    return IntOf(a) == IntOf(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNone: return true;
    case ValueKind::kString: return a.as_string() == b.as_string();
    case ValueKind::kDType: return a.as_dtype() == b.as_dtype();
    case ValueKind::kRange: {
      const Range &x = a.as_range(), &y = b.as_range();
      return x.start == y.start && x.stop == y.stop && x.step == y.step;
    }
    case ValueKind::kTensor: return TensorsEqual(a.as_tensor(), b.as_tensor());
    default: return a.SameObject(b);
  }
}

}  // namespace

bool HostEquals(const Value& a, const Value& b) {
  // The leaf never fails, so neither does the comparison.
  Result<bool> same = PairwiseEqual(a, b, /*dicts=*/true, [](const Value& x, const Value& y) -> Result<bool> {
    return LeafEquals(x, y);
  });
  return same.ok() && *same;
}

}  // namespace tfg
