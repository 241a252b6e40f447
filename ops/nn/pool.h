// The pools' operand checks: PlanMaxPool is defined in ops/nn/max_pool.cc,
// PlanAvgPool in ops/nn/avg_pool.cc. Their CPU kernels and their GPU
// kernels (ops/nn/pool_cuda.cc) plan each run through them, so both accept
// the same operands and word their errors alike.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

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

// max_pool_relu_grad's pass over images, shared by its two kernels (from
// the image, ops/nn/max_pool.cc; from kept taps, ops/nn/max_pool_taps.cc):
// route(s, e, rows) routes images [s, e) on one of the CPU's threads and
// writes each one's channel sums to its row of g.c in `rows`; the rows
// are then added into `sums` in image order, so the result does not
// depend on how the images were split over threads.
template <typename T, typename Route>
void RouteImagesSummingChannels(const OpKernelContext& ctx, const Geometry& g, T* sums, Route&& route) {
  std::vector<T> rows(static_cast<size_t>(g.n * g.c));
  ctx.ParallelFor(g.n, PoolWork(g, g.oh * g.ow), [&](int64_t s, int64_t e) { route(s, e, rows.data()); });
  std::fill(sums, sums + g.c, T(0));
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t k = 0; k < g.c; ++k) sums[k] += rows[static_cast<size_t>(b * g.c + k)];
  }
}

// avg_pool (out_backprop null) and avg_pool_grad, whose out is input;
// errors as PlanMaxPool's.
Result<PoolRun> PlanAvgPool(std::string_view op, const WindowAttrs& attrs, const TensorShape& input,
                            const TensorShape* out_backprop);

}  // namespace tfg::nn
