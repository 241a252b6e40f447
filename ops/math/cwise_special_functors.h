// The scalar math of the elementwise ops added for TensorFlow's TF1 set
// (ops/math/cwise_unary_special.cc, atan2.cc, ops/nn/selu.cc, gelu.cc), as
// functors in the style of cwise_functors.h: they see the compute type (f16
// promoted to f32 by the caller) and are host/device, so a CUDA kernel can
// share them: the GPU kernels of the float ones (not gelu, whose attr the
// generic GPU kernel has no room for, nor the bool-valued is_finite and
// is_inf) are in ops/math/cwise_cuda.cu.
#pragma once

#include <cmath>

#include "ops/math/cwise_functors.h"

namespace tfg::functor {

#define TFG_STD_UNARY_FUNCTOR(Name, fn)                                 \
  struct Name {                                                         \
    template <typename T>                                               \
    TFG_HOST_DEVICE T operator()(T x) const { return std::fn(x); }      \
  }

TFG_STD_UNARY_FUNCTOR(Erf, erf);
TFG_STD_UNARY_FUNCTOR(Erfc, erfc);
TFG_STD_UNARY_FUNCTOR(Asin, asin);
TFG_STD_UNARY_FUNCTOR(Acos, acos);
TFG_STD_UNARY_FUNCTOR(Atan, atan);
TFG_STD_UNARY_FUNCTOR(Sinh, sinh);
TFG_STD_UNARY_FUNCTOR(Cosh, cosh);
TFG_STD_UNARY_FUNCTOR(Tan, tan);

#undef TFG_STD_UNARY_FUNCTOR

struct IsFinite {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T x) const { return std::isfinite(x); }
};
struct IsInf {
  template <typename T>
  TFG_HOST_DEVICE bool operator()(T x) const { return std::isinf(x); }
};

// atan2(y, x): the angle of the point (x, y), in (-pi, pi].
struct Atan2 {
  static constexpr Check kCheck = Check::kNone;
  template <typename T>
  TFG_HOST_DEVICE T operator()(T y, T x) const { return std::atan2(y, x); }
};

// Klambauer et al.'s constants, as TensorFlow's selu.
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

struct Selu {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    return x > T(0) ? T(kSeluScale) * x : T(kSeluScale * kSeluAlpha) * std::expm1(x);
  }
};

// x * Phi(x), Phi the standard normal CDF, as tf.nn.gelu writes it:
// 0.5 x erfc(-x / sqrt(2)), which keeps its precision for large negative x.
struct GeluExact {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * std::erfc(-x * T(0.7071067811865476));
  }
};

// The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
struct GeluTanh {
  template <typename T>
  TFG_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
  }
};

}  // namespace tfg::functor
