// The pools' operand checks: PlanMaxPool is defined in ops/nn/max_pool.cc,
// PlanAvgPool in ops/nn/avg_pool.cc. Their CPU kernels and their GPU
// kernels (ops/nn/pool_cuda.cc) plan each run through them, so both accept
// the same operands and word their errors alike.
#pragma once

#include <string_view>

#include "ops/core/shape.h"
#include "ops/core/status.h"
#include "ops/nn/window.h"

namespace tfg::nn {

// One run of a pool kernel on a concrete NHWC input.
struct PoolRun {
  Geometry g;           // of pooling the input by the attrs' ksize
  TensorShape pooled;   // [batch, out_height, out_width, channels]
  TensorShape out;      // of output 0
};

enum class MaxPoolMode {
  kForward,   // max_pool(input): out is pooled
  kGrad,      // max_pool_grad(input, out_backprop): out_backprop is pooled, out is input
  kGradGrad,  // max_pool_grad_grad(input, grad): grad is input, out is pooled
  kGradRelu,  // max_pool_relu_grad(input, out_backprop): as kGrad, where the window's maximum is > 0
};
// `second` is input 1 (null for kForward). Errors (InvalidArgument,
// naming `op`): an input that is not 4-D, a VALID window larger than it,
// an input 1 of the wrong shape.
Result<PoolRun> PlanMaxPool(std::string_view op, MaxPoolMode mode, const WindowAttrs& attrs, const TensorShape& input,
                            const TensorShape* second);

// avg_pool (out_backprop null) and avg_pool_grad, whose out is input;
// errors as PlanMaxPool's.
Result<PoolRun> PlanAvgPool(std::string_view op, const WindowAttrs& attrs, const TensorShape& input,
                            const TensorShape* out_backprop);

}  // namespace tfg::nn
