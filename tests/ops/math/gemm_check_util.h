// A matrix product checked against a plain triple loop in double: the
// shared check of gemm_test (tfg::Gemm's routes) and sgemm_test (tfg's own
// f32 kernel).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ops/math/gemm.h"

namespace tfg::test {

struct GemmCase {
  const char* name;
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;  // extra elements at the end of each stored row (leading dimensions)
};

// Distinct small values, so a misplaced term changes the result.
template <typename T>
std::vector<T> GemmValues(int64_t n, int64_t seed) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(((i * 37 + seed * 11) % 29) - 14) / T(8);
  return v;
}

// Runs product(shape, a, b, beta, c, strides) on padded operands and checks
// every value of c, and that the padding past each row of c is left alone.
template <typename T, typename Product>
void ExpectProductMatchesLoop(const GemmCase& c, T beta, const Product& product) {
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const Strides ld{a_cols + c.pad, b_cols + c.pad, c.n + c.pad};
  const std::vector<T> a = GemmValues<T>(a_rows * ld.lda, 1), b = GemmValues<T>(b_rows * ld.ldb, 2);
  std::vector<T> out = GemmValues<T>(c.m * ld.ldc, 3);
  // beta == 0 must ignore what c held, NaN included.
  if (beta == T(0)) out[0] = NAN;
  const std::vector<T> before = out;
  product(GemmShape{c.ta, c.tb, c.m, c.n, c.k}, a.data(), b.data(), beta, out.data(), ld);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double want = beta == T(0) ? 0.0 : static_cast<double>(beta) * before[i * ld.ldc + j];
      for (int64_t p = 0; p < c.k; ++p) {
        const double av = c.ta ? a[p * ld.lda + i] : a[i * ld.lda + p];
        const double bv = c.tb ? b[j * ld.ldb + p] : b[p * ld.ldb + j];
        want += av * bv;
      }
      const double tol = (sizeof(T) == 4 ? 2e-5 : 1e-12) * (1.0 + std::fabs(want) + static_cast<double>(c.k) / 64);
      ASSERT_NEAR(out[i * ld.ldc + j], want, tol) << "at (" << i << ", " << j << ")";
    }
    for (int64_t j = c.n; j < ld.ldc; ++j) ASSERT_EQ(out[i * ld.ldc + j], before[i * ld.ldc + j]);
  }
}

}  // namespace tfg::test
