// Launchers of the reduction and softmax CUDA kernels
// (ops/math/reduce_cuda.cu); plain C++ signatures, see cwise_cuda.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/core/dtype.h"

namespace tfg::cuda {

enum class ReduceOp { kSum, kMean, kMax, kMin };

// Input viewed as [outer, reduce, inner], output [outer, inner]: one
// result per (outer, inner) pair. f32 and f64; sums accumulate in f64.
cudaError_t LaunchReduce(ReduceOp op, DType dtype, const void* x, void* y, int64_t outer, int64_t reduce,
                         int64_t inner, cudaStream_t stream);

// Softmax (or log-softmax) along the middle axis of [outer, n, inner].
cudaError_t LaunchSoftmax(bool log, DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                          cudaStream_t stream);

}  // namespace tfg::cuda
