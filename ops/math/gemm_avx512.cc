#include "ops/math/gemm_avx512.h"

// This file is compiled with AVX-512 enabled. Eigen's templates instantiated
// here must not be merged by the linker with the same instantiations from
// files compiled for plain x86-64 (the linker keeps one copy of each, and a
// CPU without AVX-512 could end up running this file's), so Eigen is
// included under another namespace name in this file only.
#define Eigen TfgEigenAvx512
#include <Eigen/Core>
#undef Eigen

namespace tfg::avx512 {
namespace {

namespace E = ::TfgEigenAvx512;

template <typename T>
using RowMajor = E::Matrix<T, E::Dynamic, E::Dynamic, E::RowMajor>;
template <typename T>
using Map = E::Map<RowMajor<T>, E::Unaligned, E::OuterStride<>>;
template <typename T>
using ConstMap = E::Map<const RowMajor<T>, E::Unaligned, E::OuterStride<>>;

template <typename T>
using ColMajor = E::Matrix<T, E::Dynamic, E::Dynamic, E::ColMajor>;

// Eigen computes a row-major product as the column-major cᵀ = op(b)ᵀ op(a)ᵀ,
// which packs op(a)ᵀ as its right-hand side. When a is stored [k, m] (a
// convolution's patches in dfilter = patchesᵀ @ dy) that packing copies
// short row pieces out of a long matrix and dominates. Computing c
// column-major instead packs a as the left-hand side, in whole register
// panels, and transposing the result is cheap when it is small next to a
// (k >= 4m; measured ~30% faster for 288 x 64 x 12544, in f32 when f32
// still ran here) and wide enough for those panels (m >= 48, one f32
// panel, two f64 ones).
bool PrefersColumnMajorResult(bool ta, bool tb, int64_t m, int64_t k) { return ta && !tb && m >= 48 && k >= 4 * m; }

template <typename T, typename Lhs, typename Rhs>
void ScaleAndAdd(const Lhs& A, const Rhs& B, T beta, Map<T>& C, bool column_major_result) {
  if (column_major_result) {
    ColMajor<T> product = A * B;
    if (beta == T(0)) {
      C = product;
    } else {
      C = beta * C + product;
    }
    return;
  }
  if (beta == T(0)) {
    C.setZero();
  } else if (beta != T(1)) {
    C *= beta;
  }
  C.noalias() += A * B;
}

template <typename T>
void Product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
             T beta, T* c, int64_t ldc) {
  ConstMap<T> A(a, ta ? k : m, ta ? m : k, E::OuterStride<>(lda));
  ConstMap<T> B(b, tb ? n : k, tb ? k : n, E::OuterStride<>(ldb));
  Map<T> C(c, m, n, E::OuterStride<>(ldc));
  const bool column_major = PrefersColumnMajorResult(ta, tb, m, k);
  if (!ta && !tb) {
    ScaleAndAdd(A, B, beta, C, column_major);
  } else if (ta && !tb) {
    ScaleAndAdd(A.transpose(), B, beta, C, column_major);
  } else if (!ta) {
    ScaleAndAdd(A, B.transpose(), beta, C, column_major);
  } else {
    ScaleAndAdd(A.transpose(), B.transpose(), beta, C, column_major);
  }
}

}  // namespace

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double beta, double* c, int64_t ldc) {
  Product(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tfg::avx512
