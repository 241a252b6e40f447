// max_pool, avg_pool and their gradients on the GPU, with TensorFlow's
// semantics exactly as the CPU kernels have them (ops/nn/max_pool.cc,
// avg_pool.cc): one thread per pooled element; the gradients add into the
// zeroed input gradient with atomic adds, as windows overlap.
#include "ops/nn/pool_cuda.h"
#include "devices/cuda/launch_grid.h"

namespace tfg::cuda {

namespace {

// Pooled element e: its image, channel and the valid part of its window.
struct Window {
  int64_t img, ch, hs, he, ws, we;
};
__device__ Window Locate(const PoolGeometry& g, int64_t e) {
  const int64_t ch = e % g.c, ow = (e / g.c) % g.ow, oh = (e / (g.c * g.ow)) % g.oh, img = e / (g.c * g.ow * g.oh);
  const int64_t h0 = oh * g.sh - g.pad_top, w0 = ow * g.sw - g.pad_left;
  return {img, ch, h0 > 0 ? h0 : 0, h0 + g.kh < g.h ? h0 + g.kh : g.h, w0 > 0 ? w0 : 0,
          w0 + g.kw < g.w ? w0 + g.kw : g.w};
}

__device__ int64_t At(const PoolGeometry& g, const Window& w, int64_t ih, int64_t iw) {
  return ((w.img * g.h + ih) * g.w + iw) * g.c + w.ch;
}

// The first maximum in row-major window order; a NaN beats any number.
template <typename T>
__device__ int64_t ArgMax(const PoolGeometry& g, const Window& w, const T* x) {
  int64_t best = At(g, w, w.hs, w.ws);
  for (int64_t ih = w.hs; ih < w.he; ++ih) {
    for (int64_t iw = w.ws; iw < w.we; ++iw) {
      const T v = x[At(g, w, ih, iw)], m = x[best];
      if (v > m || (v != v && m == m)) best = At(g, w, ih, iw);
    }
  }
  return best;
}

template <typename T>
__global__ void PoolKernel(PoolOp op, PoolGeometry g, const T* x, const T* dy, T* out) {
  const int64_t total = g.n * g.oh * g.ow * g.c;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{blockDim.x} * gridDim.x) {
    const Window w = Locate(g, e);
    const T count = static_cast<T>((w.he - w.hs) * (w.we - w.ws));
    switch (op) {
      case PoolOp::kMaxForward: out[e] = x[ArgMax(g, w, x)]; break;
      case PoolOp::kMaxGrad: atomicAdd(out + ArgMax(g, w, x), dy[e]); break;
      case PoolOp::kAvgForward: {
        T sum = 0;
        for (int64_t ih = w.hs; ih < w.he; ++ih) {
          for (int64_t iw = w.ws; iw < w.we; ++iw) sum += x[At(g, w, ih, iw)];
        }
        out[e] = sum / count;
        break;
      }
      case PoolOp::kAvgGrad: {
        const T share = dy[e] / count;
        for (int64_t ih = w.hs; ih < w.he; ++ih) {
          for (int64_t iw = w.ws; iw < w.we; ++iw) atomicAdd(out + At(g, w, ih, iw), share);
        }
        break;
      }
    }
  }
}

template <typename T>
cudaError_t Pool(PoolOp op, const PoolGeometry& g, const void* x, const void* dy, void* out, cudaStream_t stream) {
  const bool grad = op == PoolOp::kMaxGrad || op == PoolOp::kAvgGrad;
  if (grad) {
    cudaError_t zeroed = cudaMemsetAsync(out, 0, sizeof(T) * g.n * g.h * g.w * g.c, stream);
    if (zeroed != cudaSuccess) return zeroed;
  }
  const int64_t total = g.n * g.oh * g.ow * g.c;
  if (total == 0) return cudaSuccess;
  PoolKernel<T><<<Blocks(total), kThreads, 0, stream>>>(op, g, static_cast<const T*>(x), static_cast<const T*>(dy),
                                                        static_cast<T*>(out));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPool(PoolOp op, DType dtype, const PoolGeometry& g, const void* x, const void* dy, void* out,
                       cudaStream_t stream) {
  switch (dtype) {
    case DType::kF32: return Pool<float>(op, g, x, dy, out, stream);
    case DType::kF64: return Pool<double>(op, g, x, dy, out, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace tfg::cuda
