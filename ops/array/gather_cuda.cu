// gather and its gradient on the GPU: one thread per output element of
// gather (a copy), and one per value element of gather_grad (an atomic add
// into the zeroed output, so repeated indices add up without races).
#include "ops/array/gather_cuda.h"
#include "devices/cuda/launch_grid.h"

namespace tfg::cuda {

namespace {

// Element e of [outer, n, inner]: its index position and source row.
struct Position {
  int64_t o, i, k;
};
__device__ Position Locate(int64_t e, int64_t n, int64_t inner) {
  return {e / (n * inner), (e / inner) % n, e % inner};
}

template <typename E, typename I>
__global__ void GatherKernel(GatherArgs a, const I* indices, const E* params, E* out) {
  const int64_t total = a.outer * a.n * a.inner;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{blockDim.x} * gridDim.x) {
    const Position p = Locate(e, a.n, a.inner);
    const int64_t row = static_cast<int64_t>(indices[p.i]);
    out[e] = (row >= 0 && row < a.limit) ? params[(p.o * a.limit + row) * a.inner + p.k] : E{};
  }
}

__device__ void AtomicAdd(float* at, float v) { atomicAdd(at, v); }
__device__ void AtomicAdd(double* at, double v) { atomicAdd(at, v); }
__device__ void AtomicAdd(int32_t* at, int32_t v) { atomicAdd(at, v); }
// Two's complement: adding the unsigned bit pattern wraps like the CPU's.
__device__ void AtomicAdd(int64_t* at, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(at), static_cast<unsigned long long>(v));
}

template <typename T, typename I>
__global__ void GatherGradKernel(GatherArgs a, const I* indices, const T* values, T* out) {
  const int64_t total = a.outer * a.n * a.inner;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{blockDim.x} * gridDim.x) {
    const Position p = Locate(e, a.n, a.inner);
    const int64_t row = static_cast<int64_t>(indices[p.i]);
    if (row >= 0 && row < a.limit) AtomicAdd(out + (p.o * a.limit + row) * a.inner + p.k, values[e]);
  }
}

template <typename E, typename I>
void Gather(const GatherArgs& a, const void* params, void* out, cudaStream_t stream) {
  GatherKernel<E, I><<<Blocks(a.outer * a.n * a.inner), kThreads, 0, stream>>>(
      a, static_cast<const I*>(a.indices), static_cast<const E*>(params), static_cast<E*>(out));
}

template <typename E>
cudaError_t GatherElements(const GatherArgs& a, const void* params, void* out, cudaStream_t stream) {
  if (a.index_dtype == DType::kI32) {
    Gather<E, int32_t>(a, params, out, stream);
  } else if (a.index_dtype == DType::kI64) {
    Gather<E, int64_t>(a, params, out, stream);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t GatherGrad(const GatherArgs& a, const void* values, void* out, cudaStream_t stream) {
  cudaError_t zeroed = cudaMemsetAsync(out, 0, sizeof(T) * a.outer * a.limit * a.inner, stream);
  if (zeroed != cudaSuccess || a.outer * a.n * a.inner == 0) return zeroed;
  const unsigned blocks = Blocks(a.outer * a.n * a.inner);
  if (a.index_dtype == DType::kI32) {
    GatherGradKernel<T, int32_t><<<blocks, kThreads, 0, stream>>>(a, static_cast<const int32_t*>(a.indices),
                                                                   static_cast<const T*>(values), static_cast<T*>(out));
  } else if (a.index_dtype == DType::kI64) {
    GatherGradKernel<T, int64_t><<<blocks, kThreads, 0, stream>>>(a, static_cast<const int64_t*>(a.indices),
                                                                   static_cast<const T*>(values), static_cast<T*>(out));
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchGather(const GatherArgs& a, int element_size, const void* params, void* out, cudaStream_t stream) {
  if (a.outer * a.n * a.inner == 0) return cudaSuccess;
  switch (element_size) {
    case 1: return GatherElements<uint8_t>(a, params, out, stream);
    case 2: return GatherElements<uint16_t>(a, params, out, stream);
    case 4: return GatherElements<uint32_t>(a, params, out, stream);
    case 8: return GatherElements<uint64_t>(a, params, out, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchGatherGrad(const GatherArgs& a, DType dtype, const void* values, void* out, cudaStream_t stream) {
  if (a.outer * a.limit * a.inner == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kF32: return GatherGrad<float>(a, values, out, stream);
    case DType::kF64: return GatherGrad<double>(a, values, out, stream);
    case DType::kI32: return GatherGrad<int32_t>(a, values, out, stream);
    case DType::kI64: return GatherGrad<int64_t>(a, values, out, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace tfg::cuda
