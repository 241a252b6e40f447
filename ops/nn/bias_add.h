// bias_add's and bias_add_grad's operand checks, defined in
// ops/nn/bias_add.cc and used by their CPU kernels and their GPU kernels
// (ops/nn/bias_add_cuda.cc), so both accept the same operands and word
// their errors alike.
#pragma once

#include <cstdint>

#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg::nn {

// The value (or out_backprop) viewed as [rows, channels], channels last.
struct BiasAddRows {
  int64_t rows = 0;
  int64_t channels = 0;
};
// bias_add: `bias` must be a vector as long as the last dimension of `value`.
Result<BiasAddRows> BiasAddLayout(const TensorShape& value, const TensorShape& bias);
// bias_add_grad: `out_backprop` must have rank >= 1; the output is [channels].
Result<BiasAddRows> BiasAddGradLayout(const TensorShape& out_backprop);

}  // namespace tfg::nn
