// What the unary elementwise op families share (ops/math/cwise_unary.cc,
// cwise_unary_special.cc, gamma_functions.cc, ops/nn/gelu.cc): the kernel
// table of a float-only op, and the gradient built from a rule on dy, x and
// y = f(x).
#pragma once

#include <type_traits>

#include "ops/autodiff/gradients.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"

namespace tfg {

// F elementwise over f16, f32 and f64; the output has the input's dtype, or
// Out when given (bool for the is_* tests).
template <typename F, typename Out = void>
CwiseFns FloatUnaryFns() {
  CwiseFns fns;
  AddUnary<F, half, std::conditional_t<std::is_void_v<Out>, half, Out>>(fns);
  AddUnary<F, float, std::conditional_t<std::is_void_v<Out>, float, Out>>(fns);
  AddUnary<F, double, std::conditional_t<std::is_void_v<Out>, double, Out>>(fns);
  return fns;
}

// dL/dx from the incoming gradient dy, x and y = f(x).
using UnaryGrad = Result<Output> (*)(GradContext& g, Output dy, Output x, Output y);

// The gradient function that applies `rule` to output 0's gradient.
GradFn UnaryGradFn(UnaryGrad rule);

}  // namespace tfg
