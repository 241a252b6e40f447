#include "ops/nn/conv2d_impl.h"

#include <algorithm>
#include <memory>

#include "ops/core/checked_size.h"
#include "ops/math/gemm.h"

namespace tfg::nn {
namespace {

// Patch matrices of a chunk stay below this many bytes: large enough that
// each GEMM is big (OpenBLAS is efficient from a few hundred rows), small
// enough to stay in glibc's reusable heap rather than fresh mmap'd pages.
constexpr int64_t kChunkBytes = 16 << 20;
// The forward pass and the input gradient use each chunk's patch matrix
// right after writing it (the GEMM reads what im2col wrote; col2im reads
// what the GEMM wrote), so their chunks are sized to stay in L2: measured
// ~10% faster per training step of the Fashion-MNIST CNN than 16 MB. The
// filter gradient keeps the large chunks: its GEMM wants the long k.
constexpr int64_t kCacheChunkBytes = 1 << 20;

// Row-major c[m, n] = op(a) @ op(b) + beta * c; ld is the row length of
// each operand as stored.
struct Mat {
  bool trans;
  int64_t ld;
};

template <typename T>
void Gemm(const OpKernelContext& ctx, int64_t m, int64_t n, int64_t k, const T* a, Mat ma, const T* b, Mat mb,
          T beta, T* c) {
  tfg::Gemm(GemmShape{ma.trans, mb.trans, m, n, k}, a, b, beta, c, Strides{ma.ld, mb.ld, n}, &ctx);
}

// Scratch memory without value-initialisation (it is always overwritten).
template <typename T>
std::unique_ptr<T[]> Scratch(int64_t n) {
  return std::unique_ptr<T[]>(new T[static_cast<size_t>(std::max<int64_t>(n, 1))]);
}

bool IsPointwise(const Geometry& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pad_top == 0 && g.pad_left == 0;
}

int64_t ImagesPerChunk(const Geometry& g, int64_t elem_size, int64_t bytes = kChunkBytes) {
  // Saturated: an empty batch may come with dims whose product overflows.
  const int64_t per_image = std::max<int64_t>(checked::SaturatedProduct({g.oh, g.ow, g.patch(), elem_size}), 1);
  return std::clamp<int64_t>(bytes / per_image, 1, std::max<int64_t>(g.n, 1));
}

// std::copy_n, except that runs of a few elements (a 3x3 window of a
// one-channel image copies 3 floats at a time) are copied inline rather
// than through a memmove call each.
template <typename T>
T* CopyRun(const T* src, int64_t n, T* dst) {
  if (n > 16) return std::copy_n(src, n, dst);
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  return dst + n;
}

// Patch rows of output rows [begin, end) of a chunk; unit u is (image u / oh,
// output row u % oh), and fills ow rows of `col`. Out-of-image taps are 0.
template <typename T>
void Im2ColRows(const Geometry& g, const T* images, T* col, int64_t begin, int64_t end) {
  const int64_t k = g.patch(), run = g.kw * g.c;
  for (int64_t u = begin; u < end; ++u) {
    const T* image = images + (u / g.oh) * g.in_image();
    const int64_t ih0 = (u % g.oh) * g.sh - g.pad_top;
    T* dst = col + u * g.ow * k;
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t iw0 = ow * g.sw - g.pad_left;
      const bool contiguous = g.dw == 1 && iw0 >= 0 && iw0 + g.kw <= g.w;
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        const int64_t ih = ih0 + kh * g.dh;
        if (ih < 0 || ih >= g.h) {
          dst = std::fill_n(dst, run, T(0));
          continue;
        }
        const T* src = image + ih * g.w * g.c;
        if (contiguous) {
          dst = CopyRun(src + iw0 * g.c, run, dst);
          continue;
        }
        for (int64_t kw = 0; kw < g.kw; ++kw) {
          const int64_t iw = iw0 + kw * g.dw;
          dst = (iw < 0 || iw >= g.w) ? std::fill_n(dst, g.c, T(0)) : CopyRun(src + iw * g.c, g.c, dst);
        }
      }
    }
  }
}

// image[h, w, c] = sum of the patch rows `col` [oh * ow, k] that read each
// element (the adjoint of Im2ColRows for one image).
template <typename T>
void Col2ImImage(const Geometry& g, const T* col, T* image) {
  std::fill(image, image + g.in_image(), T(0));
  const T* row = col;
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      for (int64_t kh = 0; kh < g.kh; ++kh) {
        const int64_t ih = oh * g.sh - g.pad_top + kh * g.dh;
        for (int64_t kw = 0; kw < g.kw; ++kw, row += g.c) {
          const int64_t iw = ow * g.sw - g.pad_left + kw * g.dw;
          if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
          T* dst = image + (ih * g.w + iw) * g.c;
          for (int64_t c = 0; c < g.c; ++c) dst[c] += row[c];
        }
      }
    }
  }
}

// Fills `col` with the patches of images [b0, b0 + nb) on the intra-op pool.
template <typename T>
void Im2ColChunk(const OpKernelContext& ctx, const Geometry& g, const T* input, int64_t b0, int64_t nb, T* col) {
  const T* images = input + b0 * g.in_image();
  ctx.ParallelFor(nb * g.oh, g.ow * g.patch() + 1, [&](int64_t s, int64_t e) { Im2ColRows(g, images, col, s, e); });
}

}  // namespace

template <typename T>
void Conv2DForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* input, const T* filter,
                   T* output) {
  if (g.n == 0) return;  // its other dims may multiply past int64
  const int64_t k = g.patch(), pixels = g.oh * g.ow;
  const int64_t chunk = ImagesPerChunk(g, sizeof(T), kCacheChunkBytes);
  const bool pointwise = IsPointwise(g);
  auto col = pointwise ? nullptr : Scratch<T>(std::min(chunk, g.n) * pixels * k);
  for (int64_t b0 = 0; b0 < g.n; b0 += chunk) {
    const int64_t nb = std::min(chunk, g.n - b0);
    const T* patches = input + b0 * g.in_image();
    if (!pointwise) {
      Im2ColChunk(ctx, g, input, b0, nb, col.get());
      patches = col.get();
    }
    Gemm<T>(ctx, nb * pixels, out_channels, k, patches, {false, k}, filter, {false, out_channels}, T(0),
            output + b0 * pixels * out_channels);
  }
}

template <typename T>
void Conv2DBackpropInput(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* filter,
                         const T* dy, T* dx) {
  if (g.n == 0) return;  // its other dims may multiply past int64
  const int64_t k = g.patch(), pixels = g.oh * g.ow;
  const int64_t chunk = ImagesPerChunk(g, sizeof(T));
  if (IsPointwise(g)) {
    // dx rows are exactly the patch rows: one product, no scatter.
    for (int64_t b0 = 0; b0 < g.n; b0 += chunk) {
      const int64_t nb = std::min(chunk, g.n - b0);
      Gemm<T>(ctx, nb * pixels, k, out_channels, dy + b0 * pixels * out_channels, {false, out_channels}, filter,
              {true, out_channels}, T(0), dx + b0 * g.in_image());
    }
    return;
  }
  const int64_t dchunk = ImagesPerChunk(g, sizeof(T), kCacheChunkBytes);
  auto dcol = Scratch<T>(std::min(dchunk, g.n) * pixels * k);
  for (int64_t b0 = 0; b0 < g.n; b0 += dchunk) {
    const int64_t nb = std::min(dchunk, g.n - b0);
    Gemm<T>(ctx, nb * pixels, k, out_channels, dy + b0 * pixels * out_channels, {false, out_channels}, filter,
            {true, out_channels}, T(0), dcol.get());
    // Windows overlap within an image, so each image is one unit of work.
    ctx.ParallelFor(nb, pixels * k + 1, [&](int64_t s, int64_t e) {
      for (int64_t b = s; b < e; ++b) Col2ImImage(g, dcol.get() + b * pixels * k, dx + (b0 + b) * g.in_image());
    });
  }
}

template <typename T>
void Conv2DBackpropFilter(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const T* input,
                          const T* dy, T* dfilter) {
  const int64_t k = g.patch();
  std::fill(dfilter, dfilter + k * out_channels, T(0));
  if (g.n == 0) return;  // its other dims may multiply past int64
  const int64_t pixels = g.oh * g.ow;
  const int64_t chunk = ImagesPerChunk(g, sizeof(T));
  const bool pointwise = IsPointwise(g);
  auto col = pointwise ? nullptr : Scratch<T>(std::min(chunk, g.n) * pixels * k);
  for (int64_t b0 = 0; b0 < g.n; b0 += chunk) {
    const int64_t nb = std::min(chunk, g.n - b0);
    const T* patches = input + b0 * g.in_image();
    if (!pointwise) {
      Im2ColChunk(ctx, g, input, b0, nb, col.get());
      patches = col.get();
    }
    Gemm<T>(ctx, k, out_channels, nb * pixels, patches, {true, k}, dy + b0 * pixels * out_channels, {false, out_channels},
            T(1), dfilter);
  }
}

template void Conv2DForward<float>(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*,
                                   float*);
template void Conv2DForward<double>(const OpKernelContext&, const Geometry&, int64_t, const double*, const double*,
                                    double*);
template void Conv2DBackpropInput<float>(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*,
                                         float*);
template void Conv2DBackpropInput<double>(const OpKernelContext&, const Geometry&, int64_t, const double*,
                                          const double*, double*);
template void Conv2DBackpropFilter<float>(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*,
                                          float*);
template void Conv2DBackpropFilter<double>(const OpKernelContext&, const Geometry&, int64_t, const double*,
                                           const double*, double*);

}  // namespace tfg::nn
