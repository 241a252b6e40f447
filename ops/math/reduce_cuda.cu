// Reductions and softmax on the GPU: one block per output (or per softmax
// line); its threads stride over the reduced axis and combine their partial
// results in shared memory.
#include <cfloat>

#include "ops/math/reduce_cuda.h"

namespace tfg::cuda {

namespace {

constexpr int kThreads = 256;

struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
// NaN propagates, as in the CPU kernels (and NumPy).
struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return (a != a || a > b) ? a : b; }
};
struct MinOp {
  template <typename T>
  __device__ T operator()(T a, T b) const { return (a != a || a < b) ? a : b; }
};

// Combines every thread's `value` with `op`; all threads get the result.
template <typename A, typename Op>
__device__ A BlockReduce(A value, Op op) {
  __shared__ A partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) partial[threadIdx.x] = op(partial[threadIdx.x], partial[threadIdx.x + width]);
    __syncthreads();
  }
  A result = partial[0];
  __syncthreads();  // the next BlockReduce may overwrite partial[0]
  return result;
}

// Blocks cover outputs in a grid-stride loop (a grid has at most 2^31 - 1
// blocks along x).
template <typename T, typename A, typename Op>
__global__ void ReduceKernel(Op op, A init, bool mean, const T* x, T* y, int64_t outer, int64_t reduce,
                             int64_t inner) {
  for (int64_t out = blockIdx.x; out < outer * inner; out += gridDim.x) {
    const int64_t o = out / inner, i = out % inner;
    const T* line = x + o * reduce * inner + i;
    A acc = init;
    for (int64_t r = threadIdx.x; r < reduce; r += kThreads) acc = op(acc, static_cast<A>(line[r * inner]));
    acc = BlockReduce(acc, op);
    if (threadIdx.x == 0) y[out] = static_cast<T>(mean ? acc / static_cast<A>(reduce) : acc);
  }
}

template <typename T>
__global__ void SoftmaxKernel(bool log, const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t line = blockIdx.x; line < outer * inner; line += gridDim.x) {
    const int64_t o = line / inner, i = line % inner;
    const T* in = x + o * n * inner + i;
    T* out = y + o * n * inner + i;
    T max = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += kThreads) max = MaxOp()(max, in[j * inner]);
    max = BlockReduce(max, MaxOp());
    T sum = 0;
    for (int64_t j = threadIdx.x; j < n; j += kThreads) sum += exp(in[j * inner] - max);
    sum = BlockReduce(sum, SumOp());
    for (int64_t j = threadIdx.x; j < n; j += kThreads) {
      T shifted = in[j * inner] - max;
      out[j * inner] = log ? shifted - ::log(sum) : exp(shifted) / sum;
    }
  }
}

unsigned Blocks(int64_t outputs) { return static_cast<unsigned>(outputs < 65535 ? outputs : 65535); }

template <typename T, typename A>
cudaError_t Reduce(ReduceOp op, const void* x, void* y, int64_t outer, int64_t reduce, int64_t inner,
                   cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  const unsigned blocks = Blocks(outer * inner);
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
      ReduceKernel<T, A><<<blocks, kThreads, 0, stream>>>(SumOp(), A(0), op == ReduceOp::kMean, in, out, outer,
                                                          reduce, inner);
      break;
    case ReduceOp::kMax:
      ReduceKernel<T, T><<<blocks, kThreads, 0, stream>>>(MaxOp(), T(-INFINITY), false, in, out, outer, reduce,
                                                          inner);
      break;
    case ReduceOp::kMin:
      ReduceKernel<T, T><<<blocks, kThreads, 0, stream>>>(MinOp(), T(INFINITY), false, in, out, outer, reduce,
                                                          inner);
      break;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchReduce(ReduceOp op, DType dtype, const void* x, void* y, int64_t outer, int64_t reduce,
                         int64_t inner, cudaStream_t stream) {
  if (outer * inner == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kF32: return Reduce<float, double>(op, x, y, outer, reduce, inner, stream);
    case DType::kF64: return Reduce<double, double>(op, x, y, outer, reduce, inner, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchSoftmax(bool log, DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                          cudaStream_t stream) {
  if (outer * n * inner == 0) return cudaSuccess;
  const unsigned blocks = Blocks(outer * inner);
  switch (dtype) {
    case DType::kF32:
      SoftmaxKernel<float><<<blocks, kThreads, 0, stream>>>(log, static_cast<const float*>(x), static_cast<float*>(y),
                                                            outer, n, inner);
      break;
    case DType::kF64:
      SoftmaxKernel<double><<<blocks, kThreads, 0, stream>>>(log, static_cast<const double*>(x),
                                                             static_cast<double*>(y), outer, n, inner);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace tfg::cuda
