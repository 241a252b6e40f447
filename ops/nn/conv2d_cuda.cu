// Moving conv2d's operands into the layouts cuDNN takes: the filter
// transposed, the input padded. One thread per output element.
#include "ops/nn/conv2d_cuda.h"
#include "devices/cuda/launch_grid.h"

namespace tfg::cuda {

namespace {

template <typename E>
__global__ void TransposeKernel(const E* in, E* out, int64_t rows, int64_t cols) {
  const int64_t total = rows * cols;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{blockDim.x} * gridDim.x) {
    const int64_t c = e / rows, r = e % rows;  // e indexes out[c, r]
    out[e] = in[r * cols + c];
  }
}

template <typename E>
__global__ void PadKernel(PadArgs a, const E* in, E* out) {
  const int64_t oh = a.h + a.top + a.bottom, ow = a.w + a.left + a.right;
  const int64_t total = a.n * oh * ow * a.c;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{blockDim.x} * gridDim.x) {
    const int64_t ch = e % a.c;
    const int64_t x = (e / a.c) % ow - a.left;
    const int64_t y = (e / (a.c * ow)) % oh - a.top;
    const int64_t img = e / (a.c * ow * oh);
    const bool inside = y >= 0 && y < a.h && x >= 0 && x < a.w;
    out[e] = inside ? in[((img * a.h + y) * a.w + x) * a.c + ch] : E{};
  }
}

}  // namespace

cudaError_t LaunchTranspose2D(int element_size, const void* in, void* out, int64_t rows, int64_t cols,
                              cudaStream_t stream) {
  if (rows * cols == 0) return cudaSuccess;
  if (element_size == 4) {
    TransposeKernel<<<Blocks(rows * cols), kThreads, 0, stream>>>(static_cast<const uint32_t*>(in),
                                                                  static_cast<uint32_t*>(out), rows, cols);
  } else if (element_size == 8) {
    TransposeKernel<<<Blocks(rows * cols), kThreads, 0, stream>>>(static_cast<const uint64_t*>(in),
                                                                  static_cast<uint64_t*>(out), rows, cols);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchPadImages(int element_size, const PadArgs& a, const void* in, void* out, cudaStream_t stream) {
  const int64_t total = a.n * (a.h + a.top + a.bottom) * (a.w + a.left + a.right) * a.c;
  if (total == 0) return cudaSuccess;
  if (element_size == 4) {
    PadKernel<<<Blocks(total), kThreads, 0, stream>>>(a, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out));
  } else if (element_size == 8) {
    PadKernel<<<Blocks(total), kThreads, 0, stream>>>(a, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out));
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace tfg::cuda
