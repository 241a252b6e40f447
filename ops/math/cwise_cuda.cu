// Elementwise CUDA kernels. The arithmetic is the functors of
// ops/math/cwise_functors.h, the same code the CPU kernels run.
#include "ops/math/cwise_cuda.h"
#include "devices/cuda/launch_grid.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_special_functors.h"

namespace tfg::cuda {

namespace {

template <typename T, typename F>
__global__ void BinaryKernel(F f, const T* x, const T* y, T* z, int64_t n, BroadcastIndex index) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{blockDim.x} * gridDim.x) {
    int64_t xi = i, yi = i;
    if (index.rank > 0) {
      xi = yi = 0;
      int64_t rest = i;
      for (int d = index.rank - 1; d >= 0; --d) {
        int64_t coord = rest % index.dims[d];
        rest /= index.dims[d];
        xi += coord * index.x_strides[d];
        yi += coord * index.y_strides[d];
      }
    }
    z[i] = f(x[xi], y[yi]);
  }
}

template <typename T, typename F>
__global__ void UnaryKernel(F f, const T* x, T* y, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{blockDim.x} * gridDim.x) {
    y[i] = f(x[i]);
  }
}

template <typename T, typename F>
cudaError_t Binary(F f, const void* x, const void* y, void* z, int64_t n, const BroadcastIndex& index,
                   cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  BinaryKernel<T><<<Blocks(n), kThreads, 0, stream>>>(f, static_cast<const T*>(x), static_cast<const T*>(y),
                                                      static_cast<T*>(z), n, index);
  return cudaGetLastError();
}

template <typename F>
cudaError_t BinaryAnyType(F f, DType dtype, const void* x, const void* y, void* z, int64_t n,
                          const BroadcastIndex& index, cudaStream_t stream) {
  switch (dtype) {
    case DType::kF32: return Binary<float>(f, x, y, z, n, index, stream);
    case DType::kF64: return Binary<double>(f, x, y, z, n, index, stream);
    case DType::kI32: return Binary<int32_t>(f, x, y, z, n, index, stream);
    case DType::kI64: return Binary<int64_t>(f, x, y, z, n, index, stream);
    default: return cudaErrorInvalidValue;
  }
}

template <typename F>
cudaError_t BinaryFloat(F f, DType dtype, const void* x, const void* y, void* z, int64_t n,
                        const BroadcastIndex& index, cudaStream_t stream) {
  switch (dtype) {
    case DType::kF32: return Binary<float>(f, x, y, z, n, index, stream);
    case DType::kF64: return Binary<double>(f, x, y, z, n, index, stream);
    default: return cudaErrorInvalidValue;
  }
}

template <typename F>
cudaError_t Unary(F f, DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (dtype) {
    case DType::kF32:
      UnaryKernel<float><<<Blocks(n), kThreads, 0, stream>>>(f, static_cast<const float*>(x), static_cast<float*>(y), n);
      break;
    case DType::kF64:
      UnaryKernel<double><<<Blocks(n), kThreads, 0, stream>>>(f, static_cast<const double*>(x), static_cast<double*>(y), n);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBinary(BinaryOp op, DType dtype, const void* x, const void* y, void* z, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream) {
  switch (op) {
    case BinaryOp::kAdd: return BinaryAnyType(functor::Add(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kSub: return BinaryAnyType(functor::Sub(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kMul: return BinaryAnyType(functor::Mul(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kMaximum: return BinaryAnyType(functor::Maximum(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kMinimum: return BinaryAnyType(functor::Minimum(), dtype, x, y, z, n, index, stream);
    // Integer division and powers need checks first (zero divisors,
    // negative exponents): floats only on the GPU.
    case BinaryOp::kDiv: return BinaryFloat(functor::Div(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kPow: return BinaryFloat(functor::Pow(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kReluGrad: return BinaryFloat(functor::ReluGrad(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kSigmoidGrad: return BinaryFloat(functor::SigmoidGrad(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kTanhGrad: return BinaryFloat(functor::TanhGrad(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kSqrtGrad: return BinaryFloat(functor::SqrtGrad(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kRsqrtGrad: return BinaryFloat(functor::RsqrtGrad(), dtype, x, y, z, n, index, stream);
    case BinaryOp::kAtan2: return BinaryFloat(functor::Atan2(), dtype, x, y, z, n, index, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream) {
  switch (op) {
    case UnaryOp::kNeg: return Unary(functor::Neg(), dtype, x, y, n, stream);
    case UnaryOp::kAbs: return Unary(functor::Abs(), dtype, x, y, n, stream);
    case UnaryOp::kSquare: return Unary(functor::Square(), dtype, x, y, n, stream);
    case UnaryOp::kRelu: return Unary(functor::Relu(), dtype, x, y, n, stream);
    case UnaryOp::kExp: return Unary(functor::Exp(), dtype, x, y, n, stream);
    case UnaryOp::kLog: return Unary(functor::Log(), dtype, x, y, n, stream);
    case UnaryOp::kSqrt: return Unary(functor::Sqrt(), dtype, x, y, n, stream);
    case UnaryOp::kRsqrt: return Unary(functor::Rsqrt(), dtype, x, y, n, stream);
    case UnaryOp::kTanh: return Unary(functor::Tanh(), dtype, x, y, n, stream);
    case UnaryOp::kSigmoid: return Unary(functor::Sigmoid(), dtype, x, y, n, stream);
    case UnaryOp::kSin: return Unary(functor::Sin(), dtype, x, y, n, stream);
    case UnaryOp::kCos: return Unary(functor::Cos(), dtype, x, y, n, stream);
    case UnaryOp::kErf: return Unary(functor::Erf(), dtype, x, y, n, stream);
    case UnaryOp::kErfc: return Unary(functor::Erfc(), dtype, x, y, n, stream);
    case UnaryOp::kAsin: return Unary(functor::Asin(), dtype, x, y, n, stream);
    case UnaryOp::kAcos: return Unary(functor::Acos(), dtype, x, y, n, stream);
    case UnaryOp::kAtan: return Unary(functor::Atan(), dtype, x, y, n, stream);
    case UnaryOp::kSinh: return Unary(functor::Sinh(), dtype, x, y, n, stream);
    case UnaryOp::kCosh: return Unary(functor::Cosh(), dtype, x, y, n, stream);
    case UnaryOp::kTan: return Unary(functor::Tan(), dtype, x, y, n, stream);
    case UnaryOp::kSelu: return Unary(functor::Selu(), dtype, x, y, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace tfg::cuda
