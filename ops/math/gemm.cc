#include "ops/math/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <vector>

#include "ops/math/cwise_functors.h"

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

bool FitsBlasInt(const GemmShape& g) {
  constexpr int64_t kMax = static_cast<int64_t>(static_cast<blasint>(~0u >> 1));
  return g.m <= kMax && g.n <= kMax && g.k <= kMax;
}

}  // namespace

bool IsSmallGemm(const GemmShape& g) { return g.m * g.n * g.k <= kSingleThreadedBlasFlops; }

void Gemm(const GemmShape& g, const float* a, const float* b, float* c) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    std::fill(c, c + g.m * g.n, 0.0f);
  } else if (g.m * g.n * g.k <= kLoopGemmMaxFlops || !FitsBlasInt(g)) {
    LoopGemm(g, a, b, c);
  } else {
    cblas_sgemm(CblasRowMajor, g.transpose_a ? CblasTrans : CblasNoTrans, g.transpose_b ? CblasTrans : CblasNoTrans,
                static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), 1.0f, a,
                static_cast<blasint>(g.transpose_a ? g.m : g.k), b, static_cast<blasint>(g.transpose_b ? g.k : g.n),
                0.0f, c, static_cast<blasint>(g.n));
  }
}

void Gemm(const GemmShape& g, const double* a, const double* b, double* c) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    std::fill(c, c + g.m * g.n, 0.0);
  } else if (g.m * g.n * g.k <= kLoopGemmMaxFlops || !FitsBlasInt(g)) {
    LoopGemm(g, a, b, c);
  } else {
    cblas_dgemm(CblasRowMajor, g.transpose_a ? CblasTrans : CblasNoTrans, g.transpose_b ? CblasTrans : CblasNoTrans,
                static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), 1.0, a,
                static_cast<blasint>(g.transpose_a ? g.m : g.k), b, static_cast<blasint>(g.transpose_b ? g.k : g.n),
                0.0, c, static_cast<blasint>(g.n));
  }
}

void Gemm(const GemmShape& g, const int32_t* a, const int32_t* b, int32_t* c) { LoopGemm(g, a, b, c); }
void Gemm(const GemmShape& g, const int64_t* a, const int64_t* b, int64_t* c) { LoopGemm(g, a, b, c); }

}  // namespace tfg
