// Launchers of the elementwise CUDA kernels (ops/math/cwise_cuda.cu), with
// plain C++ signatures so the kernels' host side (cwise_cuda.cc) is
// compiled by the host compiler and only the device code by nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/core/dtype.h"

namespace tfg::cuda {

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPow,
  // Gradients through the output: (dy, y) (ops/math/cwise_grad.cc).
  kReluGrad, kSigmoidGrad, kTanhGrad, kSqrtGrad, kRsqrtGrad,
  kAtan2,
};
enum class UnaryOp {
  kNeg, kAbs, kSquare, kRelu, kExp, kLog, kSqrt, kRsqrt, kTanh, kSigmoid, kSin, kCos,
  // The TF1 additions (ops/math/cwise_special_functors.h).
  kErf, kErfc, kAsin, kAcos, kAtan, kSinh, kCosh, kTan, kSelu,
};

// Where each output element's operands are: the output's (collapsed) dims,
// row-major, and each input's element stride along them (0 where it
// broadcasts). rank 0: same shape, flat index for all.
struct BroadcastIndex {
  static constexpr int kMaxRank = 8;
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t x_strides[kMaxRank] = {};
  int64_t y_strides[kMaxRank] = {};
};

// z = op(x, y) for the `n` elements of z. Dtypes: f32, f64, i32, i64 (the
// integer ones only for add, sub, mul, maximum, minimum; the others f32 and
// f64 only). Returns the launch error.
cudaError_t LaunchBinary(BinaryOp op, DType dtype, const void* x, const void* y, void* z, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream);
// y = op(x) for n elements; f32 and f64.
cudaError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream);

}  // namespace tfg::cuda
