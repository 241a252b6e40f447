// Layout helpers of the cuDNN conv2d kernel (ops/nn/conv2d_cuda.cu), with
// plain C++ signatures (see ops/math/cwise_cuda.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tfg::cuda {

// out[c, r] = in[r, c] for a row-major [rows, cols] matrix of 4- or 8-byte
// elements: an HWIO filter seen as [kh*kw*in, out] becomes cuDNN's OHWI.
cudaError_t LaunchTranspose2D(int element_size, const void* in, void* out, int64_t rows, int64_t cols,
                              cudaStream_t stream);

// NHWC images [n, h, w, c] copied into [n, h + top + bottom, w + left +
// right, c] with zeros around: TensorFlow's SAME padding may put one more
// row or column after than before, which cuDNN's symmetric padding cannot.
struct PadArgs {
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t top = 0, bottom = 0, left = 0, right = 0;
};
cudaError_t LaunchPadImages(int element_size, const PadArgs& a, const void* in, void* out, cudaStream_t stream);

}  // namespace tfg::cuda
