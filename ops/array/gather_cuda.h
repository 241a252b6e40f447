// Launchers of the gather and gather_grad CUDA kernels
// (ops/array/gather_cuda.cu); plain C++ signatures, see
// ops/math/cwise_cuda.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/core/dtype.h"

namespace tfg::cuda {

// Params viewed as [outer, limit, inner], indices as n values of
// `index_dtype` (i32 or i64): out[o, i, :] = params[o, indices[i], :].
// Elements are copied as bytes (element_size 1, 2, 4 or 8), so every dtype
// but string works. An index outside [0, limit) gives zeros (the GPU
// cannot stop to report it; the CPU kernel fails instead).
struct GatherArgs {
  int64_t outer = 0;
  int64_t limit = 0;
  int64_t inner = 0;
  int64_t n = 0;
  DType index_dtype = DType::kI32;
  const void* indices = nullptr;
};
cudaError_t LaunchGather(const GatherArgs& a, int element_size, const void* params, void* out, cudaStream_t stream);

// The adjoint: out (shaped like params) = 0, then out[o, indices[i], :] +=
// values[o, i, :] with atomic adds (duplicates add up; an index out of
// range adds nothing). f32, f64, i32, i64.
cudaError_t LaunchGatherGrad(const GatherArgs& a, DType dtype, const void* values, void* out, cudaStream_t stream);

}  // namespace tfg::cuda
