// f32 conv2d and its backprops through oneDNN (compiled in only when CMake
// found libdnnl; see cmake/onednn.cmake). Same operands and layouts as
// ops/nn/conv2d_impl.h: NHWC activations, HWIO filter.
//
// Each call splits the batch into one or two slices per intra-op thread and runs a
// single-threaded oneDNN primitive on each slice from tfg's own pool, so
// oneDNN's OpenMP threads never compete with the executor's on a small
// machine (the engine, slicing and scratch buffers are shared with the
// oneDNN max pool: ops/nn/onednn_runtime.h). Primitives are created once
// per shape and kept (a process-wide cache); filters are reordered into
// the layout the primitive wants once per call. Each function returns false, having written nothing, when
// oneDNN is not built in or declines the shape; the caller then runs the
// reference implementation.
#pragma once

#include <cstdint>

#include "ops/core/kernel.h"
#include "ops/nn/window.h"

namespace tfg::nn::onednn {

bool Conv2DForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* input,
                   const float* filter, float* output);
bool Conv2DBackpropInput(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* filter,
                         const float* dy, float* dx);
bool Conv2DBackpropFilter(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* input,
                          const float* dy, float* dfilter);
// conv2d_bias_activation's forward: output = conv(input, filter) + bias,
// then max(., 0) when `relu`, all in the convolution's own pass (a bias and
// an eltwise_relu post-op), with a primitive cached per shape as above.
// `operands_finite`: the caller has found no NaN or Inf in the operands
// (else they are checked here where it matters: for Winograd).
bool Conv2DBiasActivationForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels,
                                 const float* input, const float* filter, const float* bias, bool relu,
                                 bool operands_finite, float* output);

}  // namespace tfg::nn::onednn
