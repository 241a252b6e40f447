// Softmax cross-entropy on the GPU, forward and gradient, sparse (class
// indices) and dense (label distributions): one block per row; its threads
// stride over the classes and combine the row maximum and the sum of
// exponentials in shared memory, as the CPU kernels do per row (the
// maximum is subtracted first, so huge logits neither overflow nor lose
// precision).
#include <cmath>

#include "ops/nn/cross_entropy_cuda.h"

namespace tfg::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__device__ T BlockCombine(T value, bool max) {
  __shared__ T partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      T a = partial[threadIdx.x], b = partial[threadIdx.x + width];
      partial[threadIdx.x] = max ? ((a != a || a > b) ? a : b) : a + b;
    }
    __syncthreads();
  }
  T result = partial[0];
  __syncthreads();  // the next call may overwrite partial[0]
  return result;
}

// log(sum(exp(x[0, n)))) for the block's row; every thread gets it.
template <typename T>
__device__ T RowLogSumExp(const T* x, int64_t n) {
  T max = -INFINITY;
  for (int64_t j = threadIdx.x; j < n; j += kThreads) max = (max != max || max > x[j]) ? max : x[j];
  max = BlockCombine(max, true);
  T sum = 0;
  for (int64_t j = threadIdx.x; j < n; j += kThreads) sum += exp(x[j] - max);
  return max + log(BlockCombine(sum, false));
}

template <typename T, typename L>
__device__ bool ValidLabel(const L* labels, int64_t r, int64_t n) {
  return labels[r] >= 0 && static_cast<int64_t>(labels[r]) < n;
}

// dloss == nullptr: out[r] is the loss; else out is dlogits.
template <typename T, typename L>
__global__ void SparseKernel(const T* x, const L* labels, const T* dloss, T* out, int64_t rows, int64_t n) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    const bool valid = ValidLabel<T>(labels, r, n);
    const T lse = RowLogSumExp(xr, n);
    if (dloss == nullptr) {
      if (threadIdx.x == 0) out[r] = valid ? lse - xr[labels[r]] : T(NAN);
      continue;
    }
    const T d = dloss[r];
    for (int64_t j = threadIdx.x; j < n; j += kThreads) {
      T g = exp(xr[j] - lse) * d;
      if (valid && j == static_cast<int64_t>(labels[r])) g -= d;
      out[r * n + j] = valid ? g : T(NAN);
    }
  }
}

template <typename T>
__global__ void DenseKernel(const T* x, const T* labels, const T* dloss, T* out, int64_t rows, int64_t n) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    const T* lr = labels + r * n;
    const T lse = n > 0 ? RowLogSumExp(xr, n) : T(0);
    if (dloss == nullptr) {
      T acc = 0;
      // A zero label adds nothing, even where its logit is -inf.
      for (int64_t j = threadIdx.x; j < n; j += kThreads) acc += lr[j] != T(0) ? lr[j] * (lse - xr[j]) : T(0);
      acc = BlockCombine(acc, false);
      if (threadIdx.x == 0) out[r] = acc;
      continue;
    }
    T weight = 0;
    for (int64_t j = threadIdx.x; j < n; j += kThreads) weight += lr[j];
    weight = BlockCombine(weight, false);
    const T d = dloss[r];
    for (int64_t j = threadIdx.x; j < n; j += kThreads) out[r * n + j] = exp(xr[j] - lse) * (weight * d) - lr[j] * d;
  }
}

unsigned Blocks(int64_t rows) { return static_cast<unsigned>(rows < 65535 ? rows : 65535); }

template <typename T>
cudaError_t Launch(const CrossEntropyArgs& a, const void* dloss, void* out, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.logits);
  const T* d = static_cast<const T*>(dloss);
  T* o = static_cast<T*>(out);
  const unsigned blocks = Blocks(a.rows);
  if (!a.sparse) {
    DenseKernel<T><<<blocks, kThreads, 0, stream>>>(x, static_cast<const T*>(a.labels), d, o, a.rows, a.classes);
  } else if (a.label_dtype == DType::kI32) {
    SparseKernel<T><<<blocks, kThreads, 0, stream>>>(x, static_cast<const int32_t*>(a.labels), d, o, a.rows,
                                                     a.classes);
  } else if (a.label_dtype == DType::kI64) {
    SparseKernel<T><<<blocks, kThreads, 0, stream>>>(x, static_cast<const int64_t*>(a.labels), d, o, a.rows,
                                                     a.classes);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t Dispatch(const CrossEntropyArgs& a, const void* dloss, void* out, cudaStream_t stream) {
  if (a.rows == 0) return cudaSuccess;
  switch (a.dtype) {
    case DType::kF32: return Launch<float>(a, dloss, out, stream);
    case DType::kF64: return Launch<double>(a, dloss, out, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t LaunchCrossEntropy(const CrossEntropyArgs& args, void* loss, cudaStream_t stream) {
  return Dispatch(args, nullptr, loss, stream);
}

cudaError_t LaunchCrossEntropyGrad(const CrossEntropyArgs& args, const void* dloss, void* dlogits,
                                   cudaStream_t stream) {
  if (dloss == nullptr) return cudaErrorInvalidValue;
  return Dispatch(args, dloss, dlogits, stream);
}

}  // namespace tfg::cuda
