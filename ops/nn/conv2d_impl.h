// The arithmetic of conv2d and its two backprops, as im2col + GEMM: every
// output pixel's receptive field becomes one row of a patch matrix
// [pixels, kh*kw*c] (column order kh, kw, c — the filter's own layout), so
//   forward:         out[pixels, o]  = patches @ filter[kh*kw*c, o]
//   backprop filter: dfilter         = patches^T @ dy[pixels, o]
//   backprop input:  dpatches        = dy @ filter^T, scattered back (col2im)
// The batch is processed in chunks of images whose patch matrix stays under
// a bound (about L2-sized where the patches are consumed right away), each
// chunk one GEMM (ops/math/gemm.h, which spreads it over the intra-op
// pool); im2col/col2im run on the intra-op pool too. 1x1 stride-1 convolutions skip im2col.
// T is float or double; f16 callers widen to float.
#pragma once

#include <cstdint>

#include "ops/core/kernel.h"
#include "ops/nn/window.h"

namespace tfg::nn {

// input [n, h, w, c], filter [kh, kw, c, out_channels], output [n, oh, ow, out_channels].
template <typename T>
void Conv2DForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* input, const T* filter,
                   T* output);

// dy [n, oh, ow, out_channels] -> dx [n, h, w, c] (overwritten).
template <typename T>
void Conv2DBackpropInput(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* filter,
                         const T* dy, T* dx);

// dy [n, oh, ow, out_channels] -> dfilter [kh, kw, c, out_channels] (overwritten).
template <typename T>
void Conv2DBackpropFilter(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* input,
                          const T* dy, T* dfilter);

}  // namespace tfg::nn
