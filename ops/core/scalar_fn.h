// Elementwise ops on one number, without Tensors: a loop whose values are
// all scalars runs as a register machine over these (interp/runtime/scalar_loop.h),
// which is what makes a million-iteration scalar while_loop cheap. Each
// function is made from the same functor as the op's CPU kernel
// (ops/math/cwise_loops.h), so both compute exactly the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "ops/core/dtype.h"

namespace tfg {

// One f32, f64, i32, i64 or bool value; which one the op's dtype says.
union ScalarValue {
  float f32;
  double f64;
  int32_t i32;
  int64_t i64;
  bool b;

  template <typename T>
  T get() const {
    if constexpr (std::is_same_v<T, float>) return f32;
    else if constexpr (std::is_same_v<T, double>) return f64;
    else if constexpr (std::is_same_v<T, int32_t>) return i32;
    else if constexpr (std::is_same_v<T, int64_t>) return i64;
    else return b;
  }
  template <typename T>
  void set(T v) {
    if constexpr (std::is_same_v<T, float>) f32 = v;
    else if constexpr (std::is_same_v<T, double>) f64 = v;
    else if constexpr (std::is_same_v<T, int32_t>) i32 = v;
    else if constexpr (std::is_same_v<T, int64_t>) i64 = v;
    else b = v;
  }
};

// The types a ScalarValue holds.
template <typename T>
inline constexpr bool kIsScalarValueType =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, bool>;

inline bool IsScalarValueType(DType d) {
  return d == DType::kF32 || d == DType::kF64 || d == DType::kI32 || d == DType::kI64 || d == DType::kBool;
}

// out = op(in[0], ...). False where the op's kernel would fail (integer
// division by zero): the caller then runs the kernel for its error.
using ScalarFn = bool (*)(const ScalarValue* in, ScalarValue* out);

// By op name and the dtype its kernel dispatches on (input 0's). Ops
// register theirs at start-up next to their kernels.
void RegisterScalarFn(const std::string& op, DType dtype, ScalarFn fn);
// Null when the op has none for that dtype.
ScalarFn FindScalarFn(const std::string& op, DType dtype);
// The name cast's scalar functions to `to` are registered under (its
// function depends on the target dtype as well as the source).
std::string CastScalarOp(DType to);

}  // namespace tfg
