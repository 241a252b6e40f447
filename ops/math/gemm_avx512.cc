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
void Product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
             T beta, T* c, int64_t ldc) {
  ConstMap<T> A(a, ta ? k : m, ta ? m : k, E::OuterStride<>(lda));
  ConstMap<T> B(b, tb ? n : k, tb ? k : n, E::OuterStride<>(ldb));
  Map<T> C(c, m, n, E::OuterStride<>(ldc));
  if (beta == T(0)) {
    C.setZero();
  } else if (beta != T(1)) {
    C *= beta;
  }
  if (!ta && !tb) {
    C.noalias() += A * B;
  } else if (ta && !tb) {
    C.noalias() += A.transpose() * B;
  } else if (!ta) {
    C.noalias() += A * B.transpose();
  } else {
    C.noalias() += A.transpose() * B.transpose();
  }
}

}  // namespace

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* c, int64_t ldc) {
  Product(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double beta, double* c, int64_t ldc) {
  Product(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tfg::avx512
