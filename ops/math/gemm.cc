#include "ops/math/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include <unsupported/Eigen/CXX11/Tensor>

#include "ops/core/device.h"
#include "ops/core/kernel.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/gemm_avx512.h"
#if defined(TFG_HAVE_AVX512_GEMM)
#include "ops/math/sgemm.h"
#endif

namespace tfg {
namespace {

// Up to this many multiply-adds (about 5x5x5) a plain loop beats a BLAS
// call, whose dispatch costs more than the arithmetic; above it OpenBLAS's
// kernels (chosen for the running CPU) win even for 8x8 products.
constexpr int64_t kLoopGemmMaxFlops = 128;
// OpenBLAS runs products below roughly this size on the calling thread.
constexpr int64_t kSingleThreadedBlasFlops = 64 * 64 * 64;

// c = op(a) @ op(b) with loops ordered so the innermost one runs over
// contiguous memory. Integer arithmetic wraps (functor::WrapAdd/WrapMul).
template <typename T>
void LoopGemm(const GemmShape& g, const T* a, const T* b, T* c) {
  const int64_t m = g.m, n = g.n, k = g.k;
  auto a_at = [&](int64_t i, int64_t p) { return g.transpose_a ? a[p * m + i] : a[i * k + p]; };
  if (!g.transpose_b) {
    for (int64_t i = 0; i < m; ++i) {
      T* row = c + i * n;
      std::fill(row, row + n, T(0));
      for (int64_t p = 0; p < k; ++p) {
        const T av = a_at(i, p);
        const T* brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] = functor::WrapAdd(row[j], functor::WrapMul(av, brow[j]));
      }
    }
    return;
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const T* brow = b + j * k;
      T acc = 0;
      for (int64_t p = 0; p < k; ++p) acc = functor::WrapAdd(acc, functor::WrapMul(a_at(i, p), brow[p]));
      c[i * n + j] = acc;
    }
  }
}


}  // namespace

bool IsSmallGemm(const GemmShape& g) { return g.m * g.n * g.k <= kSingleThreadedBlasFlops; }

namespace {

void Blas(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld) {
  cblas_sgemm(CblasRowMajor, g.transpose_a ? CblasTrans : CblasNoTrans, g.transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), 1.0f, a,
              static_cast<blasint>(ld.lda), b, static_cast<blasint>(ld.ldb), beta, c, static_cast<blasint>(ld.ldc));
}

void Blas(const GemmShape& g, const double* a, const double* b, double beta, double* c, Strides ld) {
  cblas_dgemm(CblasRowMajor, g.transpose_a ? CblasTrans : CblasNoTrans, g.transpose_b ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), 1.0, a,
              static_cast<blasint>(ld.lda), b, static_cast<blasint>(ld.ldb), beta, c, static_cast<blasint>(ld.ldc));
}

bool FitsBlasInt(const GemmShape& g, Strides ld) {
  constexpr int64_t kMax = static_cast<int64_t>(static_cast<blasint>(~0u >> 1));
  return g.m <= kMax && g.n <= kMax && g.k <= kMax && ld.lda <= kMax && ld.ldb <= kMax && ld.ldc <= kMax;
}

// Rows of c per unit of parallel work, at least: enough that each piece is
// a full-speed product.
constexpr int64_t kRowsPerPiece = 64;

// The intra-op threads of the context's device. A device without an Eigen
// pool (tests' threaded devices) shares work out its own way; this many
// pieces give it something to share.
constexpr int64_t kPiecesWithoutPool = 4;
int64_t PoolThreads(const OpKernelContext& ctx) {
  if (ctx.device() == nullptr) return 1;
  const Eigen::ThreadPoolDevice* pool = ctx.device()->eigen_cpu_device();
  return pool != nullptr ? std::max(pool->numThreads(), 1) : kPiecesWithoutPool;
}
// Depth (k) per unit of parallel work when k is split instead.
constexpr int64_t kDepthPerPiece = 512;
// Columns of c per unit of parallel work when columns are split.
constexpr int64_t kColumnsPerPiece = 256;

// f32 on AVX-512 runs tfg's own tiles (sgemm.h), which share their work
// out over the threads themselves. Builds without AVX-512 never get here
// (avx512::Available() is false) but still compile this.
void Avx512Sgemm(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
                 const OpKernelContext* ctx, int64_t threads) {
#if defined(TFG_HAVE_AVX512_GEMM)
  TiledSgemm(g, a, b, beta, c, ld, ctx, threads);
#else
  (void)ctx, (void)threads;
  Blas(g, a, b, beta, c, ld);
#endif
}

// One product on the calling thread: f32 by tfg's own tiles, f64 by
// Eigen's kernels.
void Avx512Block(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld) {
  Avx512Sgemm(g, a, b, beta, c, ld, nullptr, 1);
}
void Avx512Block(const GemmShape& g, const double* a, const double* b, double beta, double* c, Strides ld) {
  avx512::Gemm(g.transpose_a, g.transpose_b, g.m, g.n, g.k, a, ld.lda, b, ld.ldb, beta, c, ld.ldc);
}

// A long k behind a small c (a convolution's filter gradient, patchesᵀ @
// dy, has k = every output pixel of the batch) leaves too few rows of c to
// share out, and each band would pack all of b again. Such products split
// k: the first range of pieces accumulates into c, each other range into a
// partial product of its own, added to c afterwards in a fixed order.
bool SplitsDepth(const GemmShape& g) { return g.k >= 4 * std::max(g.m, g.n) && g.k >= 2 * kDepthPerPiece; }

template <typename T>
void Avx512SplitDepth(const GemmShape& g, const T* a, const T* b, T beta, T* c, Strides ld,
                      const OpKernelContext& ctx) {
  // One range per thread: each range packs its share of both operands
  // again, and Eigen blocks a long k well by itself.
  const int64_t pieces = std::min(g.k / kDepthPerPiece, PoolThreads(ctx));
  const int64_t depth = (g.k + pieces - 1) / pieces;
  std::vector<std::unique_ptr<T[]>> partials(static_cast<size_t>(pieces));
  ctx.ParallelFor(pieces, 2 * g.m * g.n * depth, [&](int64_t s, int64_t e) {
    const int64_t k0 = s * depth, k1 = std::min(g.k, e * depth);
    const GemmShape part{g.transpose_a, g.transpose_b, g.m, g.n, k1 - k0};
    const T* a_part = g.transpose_a ? a + k0 * ld.lda : a + k0;
    const T* b_part = g.transpose_b ? b + k0 : b + k0 * ld.ldb;
    if (s == 0) {
      Avx512Block(part, a_part, b_part, beta, c, ld);
      return;
    }
    auto& out = partials[static_cast<size_t>(s)];
    out.reset(new T[static_cast<size_t>(g.m * g.n)]);
    Avx512Block(part, a_part, b_part, T(0), out.get(), Strides{ld.lda, ld.ldb, g.n});
  });
  for (const auto& partial : partials) {
    if (!partial) continue;
    for (int64_t i = 0; i < g.m; ++i) {
      T* row = c + i * ld.ldc;
      const T* add = partial.get() + i * g.n;
      for (int64_t j = 0; j < g.n; ++j) row[j] += add[j];
    }
  }
}

// Too few rows of c to share out (a dense layer's input gradient, batch x
// features): bands of c's columns instead, each packing all of op(a),
// which is then the small operand.
template <typename T>
void Avx512Columns(const GemmShape& g, const T* a, const T* b, T beta, T* c, Strides ld, const OpKernelContext& ctx) {
  const int64_t pieces = std::min(g.n / kColumnsPerPiece, PoolThreads(ctx));
  if (pieces < 2) {
    Avx512Block(g, a, b, beta, c, ld);
    return;
  }
  const int64_t cols = (g.n + pieces - 1) / pieces;
  ctx.ParallelFor(pieces, 2 * g.m * cols * g.k, [&](int64_t s, int64_t e) {
    const int64_t c0 = s * cols, c1 = std::min(g.n, e * cols);
    const T* b_cols = g.transpose_b ? b + c0 * ld.ldb : b + c0;
    Avx512Block(GemmShape{g.transpose_a, g.transpose_b, g.m, c1 - c0, g.k}, a, b_cols, beta, c + c0, ld);
  });
}

// A product whose k dwarfs c is split along k (above). Otherwise f32 shares
// itself out (sgemm.h); Eigen's f64 kernels run on the calling thread, so a
// large f64 product is cut into bands of c's rows here.
template <typename T>
void Avx512(const GemmShape& g, const T* a, const T* b, T beta, T* c, Strides ld, const OpKernelContext* ctx) {
  if (ctx == nullptr || IsSmallGemm(g)) {
    Avx512Block(g, a, b, beta, c, ld);
    return;
  }
  if (SplitsDepth(g)) {
    Avx512SplitDepth(g, a, b, beta, c, ld, *ctx);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    Avx512Sgemm(g, a, b, beta, c, ld, ctx, PoolThreads(*ctx));
    return;
  }
  // One band per thread: every band packs all of op(b) again (4 MB for a
  // 1024x1024 b), so the fewer bands the less memory traffic; at 2 threads
  // 8 bands of 128 rows spent about a third of a 1024^3 product repacking.
  const int64_t pieces = std::min(g.m / kRowsPerPiece, PoolThreads(*ctx));
  if (pieces < 2) {
    Avx512Columns(g, a, b, beta, c, ld, *ctx);
    return;
  }
  const int64_t rows = (g.m + pieces - 1) / pieces;
  ctx->ParallelFor(pieces, 2 * rows * g.n * g.k, [&](int64_t s, int64_t e) {
    const int64_t r0 = s * rows, r1 = std::min(g.m, e * rows);
    const T* a_rows = g.transpose_a ? a + r0 : a + r0 * ld.lda;
    Avx512Block(GemmShape{g.transpose_a, g.transpose_b, r1 - r0, g.n, g.k}, a_rows, b, beta, c + r0 * ld.ldc, ld);
  });
}

template <typename T>
void StridedGemm(const GemmShape& g, const T* a, const T* b, T beta, T* c, Strides ld, const OpKernelContext* ctx) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    for (int64_t i = 0; i < g.m; ++i) {
      T* row = c + i * ld.ldc;
      for (int64_t j = 0; j < g.n; ++j) row[j] = beta == T(0) ? T(0) : beta * row[j];
    }
  } else if (avx512::Available()) {
    Avx512(g, a, b, beta, c, ld, ctx);
  } else {
    Blas(g, a, b, beta, c, ld);
  }
}

template <typename T>
void DenseGemm(const GemmShape& g, const T* a, const T* b, T* c, const OpKernelContext* ctx) {
  if (g.m == 0 || g.n == 0) return;
  const Strides ld{g.transpose_a ? g.m : g.k, g.transpose_b ? g.k : g.n, g.n};
  if (g.k > 0 && (g.m * g.n * g.k <= kLoopGemmMaxFlops || !FitsBlasInt(g, ld))) {
    LoopGemm(g, a, b, c);
    return;
  }
  StridedGemm(g, a, b, T(0), c, ld, ctx);
}

}  // namespace

namespace avx512 {
bool Available() {
#if defined(TFG_HAVE_AVX512_GEMM)
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("fma");
  }();
  return available;
#else
  return false;
#endif
}
}  // namespace avx512

void Gemm(const GemmShape& g, const float* a, const float* b, float* c, const OpKernelContext* ctx) {
  DenseGemm(g, a, b, c, ctx);
}
void Gemm(const GemmShape& g, const double* a, const double* b, double* c, const OpKernelContext* ctx) {
  DenseGemm(g, a, b, c, ctx);
}
void Gemm(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
          const OpKernelContext* ctx) {
  StridedGemm(g, a, b, beta, c, ld, ctx);
}
void Gemm(const GemmShape& g, const double* a, const double* b, double beta, double* c, Strides ld,
          const OpKernelContext* ctx) {
  StridedGemm(g, a, b, beta, c, ld, ctx);
}

void Gemm(const GemmShape& g, const int32_t* a, const int32_t* b, int32_t* c, const OpKernelContext*) {
  LoopGemm(g, a, b, c);
}
void Gemm(const GemmShape& g, const int64_t* a, const int64_t* b, int64_t* c, const OpKernelContext*) {
  LoopGemm(g, a, b, c);
}

}  // namespace tfg
