// Mapping between DType and C++ element types, and a dispatch macro for
// kernels. Kept apart from dtype.h because it pulls in Eigen's half type.
#pragma once

#include <Eigen/Core>
#include <string>

#include "ops/core/dtype.h"

namespace tfg {

using half = Eigen::half;

template <DType D> struct DTypeToCpp;
template <> struct DTypeToCpp<DType::kF16> { using type = half; };
template <> struct DTypeToCpp<DType::kF32> { using type = float; };
template <> struct DTypeToCpp<DType::kF64> { using type = double; };
template <> struct DTypeToCpp<DType::kI32> { using type = int32_t; };
template <> struct DTypeToCpp<DType::kI64> { using type = int64_t; };
template <> struct DTypeToCpp<DType::kBool> { using type = bool; };
template <> struct DTypeToCpp<DType::kString> { using type = std::string; };

template <typename T> constexpr DType kDTypeOf = DType::kInvalid;
template <> inline constexpr DType kDTypeOf<half> = DType::kF16;
template <> inline constexpr DType kDTypeOf<float> = DType::kF32;
template <> inline constexpr DType kDTypeOf<double> = DType::kF64;
template <> inline constexpr DType kDTypeOf<int32_t> = DType::kI32;
template <> inline constexpr DType kDTypeOf<int64_t> = DType::kI64;
template <> inline constexpr DType kDTypeOf<bool> = DType::kBool;
template <> inline constexpr DType kDTypeOf<std::string> = DType::kString;

}  // namespace tfg

// TFG_DISPATCH_NUMBER(dtype, T, { body using T; }) runs body with T bound to
// the C++ type of a numeric dtype; other dtypes fall to the `else` of the
// surrounding code via the returned false. Usage:
//   bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, { Kernel<T>(...); });
#define TFG_DISPATCH_CASE_(D, T, ...)        \
  case D: {                                  \
    using T = ::tfg::DTypeToCpp<D>::type;    \
    __VA_ARGS__;                             \
    return true;                             \
  }
#define TFG_DISPATCH_NUMBER(dtype, T, ...)                          \
  [&]() -> bool {                                                   \
    switch (dtype) {                                                \
      TFG_DISPATCH_CASE_(::tfg::DType::kF16, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kF32, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kF64, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kI32, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kI64, T, __VA_ARGS__)        \
      default: return false;                                        \
    }                                                               \
  }()
#define TFG_DISPATCH_ALL(dtype, T, ...)                             \
  [&]() -> bool {                                                   \
    switch (dtype) {                                                \
      TFG_DISPATCH_CASE_(::tfg::DType::kF16, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kF32, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kF64, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kI32, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kI64, T, __VA_ARGS__)        \
      TFG_DISPATCH_CASE_(::tfg::DType::kBool, T, __VA_ARGS__)       \
      TFG_DISPATCH_CASE_(::tfg::DType::kString, T, __VA_ARGS__)     \
      default: return false;                                        \
    }                                                               \
  }()
