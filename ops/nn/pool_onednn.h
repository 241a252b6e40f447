// f32 max_pool through oneDNN's pooling primitive (compiled in only when
// CMake found libdnnl; see cmake/onednn.cmake), on the same NHWC operands
// as the reference kernel in ops/nn/max_pool.cc. Like the convolutions
// (ops/nn/conv2d_onednn.h) the batch is split into one or two slices per
// intra-op thread, each run by a single-threaded primitive created once per shape
// and kept. The selection follows the convolutions' (ops/nn/conv_backend.h:
// TFG_CPU_CONV=reference turns it off), and max_pool calls it only where
// tfg's AVX-512 loop does not run, which is faster (ops/nn/max_pool.cc).
//
// max_pool_grad stays on tfg's own loop: the graph passes it the pooled
// op's input, not oneDNN's argmax workspace, so oneDNN would have to rerun
// the forward pass, then zero and scatter into d input — three passes over
// the input where tfg's loop makes one, and measured slower on this
// machine's CNN shapes (0.70-0.74 ms against 0.58-0.74 ms for
// [64, 28, 28, 32] by 2x2, 2 threads).
//
// Returns false, having left y unspecified, when oneDNN is not built in or
// declines the shape, or when the input holds a NaN or -inf: oneDNN starts
// each window's maximum at the lowest finite float and never lets a NaN
// win, where TensorFlow's rule (and the reference's) makes a NaN the
// maximum and a window of -inf pool to -inf. The caller then runs the reference, which
// writes every output element. Max pooling is exact, so the two agree on
// every other input.
#pragma once

#include "ops/core/kernel.h"
#include "ops/nn/window.h"

namespace tfg::nn::onednn {

bool MaxPoolForward(const OpKernelContext& ctx, const Geometry& g, const float* x, float* y);

}  // namespace tfg::nn::onednn
