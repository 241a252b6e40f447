// The scalar math of elementwise ops, as plain functor structs shared by the
// CPU loops and (compiled by nvcc) a CUDA device, so both compute exactly
// the same thing. Functors see the compute type: f16 is promoted to f32 by
// the caller.
//
// Signed integer arithmetic wraps (two's complement) instead of being
// undefined on overflow, as in TensorFlow on real hardware; the checks that
// must fail loudly (integer division by zero, negative integer exponents)
// are made by the kernels before the loop runs (see `kCheck`).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define TFG_HOST_DEVICE __host__ __device__
#else
#define TFG_HOST_DEVICE
#endif

namespace tfg::functor {

// What a kernel must verify about the second operand of an integer op.
enum class Check { kNone, kNonZeroDivisor, kNonNegativeExponent };

template <typename T>
inline constexpr bool kIsSignedInt = std::is_integral_v<T> && std::is_signed_v<T>;

template <typename T>
TFG_HOST_DEVICE inline T WrapAdd(T a, T b) {
  if constexpr (kIsSignedInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
TFG_HOST_DEVICE inline T WrapSub(T a, T b) {
  if constexpr (kIsSignedInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return a - b;
  }
}
template <typename T>
TFG_HOST_DEVICE inline T WrapMul(T a, T b) {
  if constexpr (kIsSignedInt<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
TFG_HOST_DEVICE inline T WrapNeg(T a) {
  // Floats negate the sign bit: -(0.0) is -0.0, as in TensorFlow (0 - 0.0 is +0.0).
  if constexpr (std::is_integral_v<T>) {
    return WrapSub(T(0), a);
  } else {
    return -a;
  }
}

// ---- binary arithmetic

struct Add {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const { return WrapAdd(a, b); }
};

struct Sub {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const { return WrapSub(a, b); }
};

struct Mul {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const { return WrapMul(a, b); }
};

// Floats: true division. Ints: C's truncating division; b != 0 is checked
// by the kernel, and MIN / -1 wraps instead of trapping.
struct Div {
  static constexpr Check kCheck = Check::kNonZeroDivisor;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return b == T(-1) ? WrapNeg(a) : a / b;
    } else {
      return a / b;
    }
  }
};

// Python's a // b: rounds toward negative infinity. Floats follow CPython's
// float_floor_div (fmod-based, so 1.0 // 0.1 == 9.0 as in Python and NumPy).
struct FloorDiv {
  static constexpr Check kCheck = Check::kNonZeroDivisor;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(-1)) return WrapNeg(a);
      T q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      if (b == T(0)) return a / b;
      T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return std::copysign(T(0), a / b);
      T floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    }
  }
};

// Python's a % b (TF's floormod): the result has the divisor's sign.
struct Mod {
  static constexpr Check kCheck = Check::kNonZeroDivisor;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(-1)) return T(0);
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      T r = std::fmod(a, b);
      if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
      return r;
    }
  }
};

// Ints: exact power by squaring (wrapping); a negative exponent is an error
// the kernel reports.
struct Pow {
  static constexpr Check kCheck = Check::kNonNegativeExponent;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      T result = 1;
      while (b > 0) {
        if (b & 1) result = WrapMul(result, a);
        a = WrapMul(a, a);
        b >>= 1;
      }
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};

// NaN propagates, as in NumPy.
struct Maximum {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const { return (a >= b || a != a) ? a : b; }
};

struct Minimum {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T a, T b) const { return (a <= b || a != a) ? a : b; }
};

// clip_by_value (ops/nn/clip_by_value.cc) on the storage type: t raised to
// lo, then lowered to hi, so min > max gives hi, and a NaN in t stays NaN
// while a NaN bound is ignored (its comparison is false).
struct ClipByValue {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x, T lo, T hi) const {
    const T v = x < lo ? lo : x;
    return v > hi ? hi : v;
  }
};

// ---- comparisons and logic (bool results)

struct Equal {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(const T& a, const T& b) const { return a == b; }
};
struct NotEqual {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(const T& a, const T& b) const { return a != b; }
};
struct Less {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T a, T b) const { return a < b; }
};
struct LessEqual {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T a, T b) const { return a <= b; }
};
struct Greater {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T a, T b) const { return a > b; }
};
struct GreaterEqual {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T a, T b) const { return a >= b; }
};
struct LogicalAnd {
  TFG_HOST_DEVICE bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOr {
  TFG_HOST_DEVICE bool operator()(bool a, bool b) const { return a || b; }
};

// ---- unary

struct Neg {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return WrapNeg(x); }
};
struct Abs {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);
    } else {
      return x < T(0) ? WrapNeg(x) : x;  // abs(MIN) wraps to MIN, as in TF
    }
  }
};
// sign(nan) is nan, sign(±0) is 0.
struct Sign {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    if (x != x) return x;
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Square {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return WrapMul(x, x); }
};
// max(x, 0) as TensorFlow computes it (Eigen's cwiseMax): NaN and -0.0
// come through unchanged.
struct Relu {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
struct Exp {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::exp(x); }
};
struct Log {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::log(x); }
};
struct Sqrt {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::sqrt(x); }
};
struct Rsqrt {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return T(1) / std::sqrt(x); }
};
struct Tanh {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::tanh(x); }
};
// Never evaluates exp of a large positive number: no overflow to inf/inf.
struct Sigmoid {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct Sin {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::sin(x); }
};
struct Cos {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::cos(x); }
};
// Rounding: floor and ceil toward -inf / +inf; round to the nearest
// integer with ties to even (TensorFlow's round, NumPy's rint), not C's
// std::round, which takes ties away from zero.
struct Floor {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::floor(x); }
};
struct Ceil {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::ceil(x); }
};
struct Round {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    T r = std::floor(x);
    const T diff = x - r;
    if (diff > T(0.5) || (diff == T(0.5) && std::fmod(r, T(2)) != T(0))) r += T(1);
    return r == T(0) ? std::copysign(T(0), x) : r;  // -0.4 -> -0.0, as NumPy
  }
};
// log(1 + x) and exp(x) - 1, accurate for x near 0.
struct Log1p {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::log1p(x); }
};
struct Expm1 {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return std::expm1(x); }
};
struct Reciprocal {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const { return T(1) / x; }
};
// ---- gradients of unary ops through their output y: f(dy, y)
// (ops/math/cwise_grad.cc)

struct ReluGrad {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T dy, T y) const { return y > T(0) ? dy : T(0); }
};
struct SigmoidGrad {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T dy, T y) const { return dy * (y * (T(1) - y)); }
};
struct TanhGrad {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T dy, T y) const { return dy * (T(1) - y * y); }
};
struct SqrtGrad {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T dy, T y) const { return (dy * T(0.5)) / y; }
};
struct RsqrtGrad {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T dy, T y) const { return (y * y * y) * dy * T(-0.5); }
};

struct LogicalNot {
  TFG_HOST_DEVICE bool operator()(bool x) const { return !x; }
};

// ---- conversion (cast)

// Float to integer truncates toward zero like C++ and TF; values out of the
// target's range saturate and NaN becomes 0 instead of being undefined.
// To bool: x != 0. From bool: 0 or 1.
template <typename To>
struct CastTo {
  template <typename From>
  TFG_HOST_DEVICE To operator()(From x) const {
    if constexpr (std::is_same_v<To, bool>) {
      return x != From(0);
    } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
      if (x != x) return To(0);
      constexpr From kHi = static_cast<From>(std::numeric_limits<To>::max());
      constexpr From kLo = static_cast<From>(std::numeric_limits<To>::min());
      if (x >= kHi) return std::numeric_limits<To>::max();
      if (x <= kLo) return std::numeric_limits<To>::min();
      return static_cast<To>(x);
    } else {
      return static_cast<To>(x);
    }
  }
};

}  // namespace tfg::functor
