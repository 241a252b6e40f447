// Launchers of the softmax cross-entropy CUDA kernels
// (ops/nn/cross_entropy_cuda.cu); plain C++ signatures, see
// ops/math/cwise_cuda.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/core/dtype.h"

namespace tfg::cuda {

// Logits are [rows, classes] of `dtype` (f32 or f64). Labels: class
// indices, one per row, of `label_dtype` (i32 or i64) when `sparse`; else
// a [rows, classes] tensor of `dtype`.
struct CrossEntropyArgs {
  bool sparse = false;
  DType dtype = DType::kF32;
  DType label_dtype = DType::kF32;
  const void* logits = nullptr;
  const void* labels = nullptr;
  int64_t rows = 0;
  int64_t classes = 0;
};

// loss[r] per row. A sparse label outside [0, classes) gives a NaN loss
// (the GPU cannot stop to report it; the CPU kernel fails instead).
cudaError_t LaunchCrossEntropy(const CrossEntropyArgs& args, void* loss, cudaStream_t stream);
// dlogits[r, :] from dloss[r] (see the ops' _grad helpers); a row whose
// sparse label is out of range is NaN.
cudaError_t LaunchCrossEntropyGrad(const CrossEntropyArgs& args, const void* dloss, void* dlogits,
                                   cudaStream_t stream);

}  // namespace tfg::cuda
