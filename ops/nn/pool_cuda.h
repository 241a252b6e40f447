// Launchers of the pooling CUDA kernels (ops/nn/pool_cuda.cu); plain C++
// signatures, see ops/math/cwise_cuda.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/core/dtype.h"

namespace tfg::cuda {

enum class PoolOp {
  kMaxForward,  // y = max of each window (padding skipped; a NaN wins)
  kAvgForward,  // y = mean of each window's valid taps
  kMaxGrad,     // dx: each window's dy added at its argmax (the first maximum)
  kAvgGrad,     // dx: each window's dy spread evenly over its valid taps
};

// NHWC geometry, as nn::Geometry computes it (TensorFlow's padding rules).
struct PoolGeometry {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t oh = 0, ow = 0, pad_top = 0, pad_left = 0;
};

// Forward: x [n, h, w, c] -> out [n, oh, ow, c] (dy unused). Grads: x is the
// forward input (max only), dy [n, oh, ow, c] -> out [n, h, w, c]. f32, f64.
cudaError_t LaunchPool(PoolOp op, DType dtype, const PoolGeometry& g, const void* x, const void* dy, void* out,
                       cudaStream_t stream);

}  // namespace tfg::cuda
