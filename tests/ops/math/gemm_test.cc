// tfg::Gemm on the shapes that take its different routes (row bands over
// threads, column bands when c has few rows, a split of k with partial
// sums, Eigen's column-major result for a transposed a with a long k),
// against a plain triple loop in double.
#include "ops/math/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "tests/ops/op_test_util.h"

namespace tfg::gemm_test {
namespace {

struct Case {
  const char* name;
  bool ta, tb;
  int64_t m, n, k;
  int64_t pad;  // extra elements at the end of each stored row (leading dimensions)
};

// Distinct small values, so a misplaced term changes the result.
template <typename T>
std::vector<T> Values(int64_t n, int64_t seed) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(((i * 37 + seed * 11) % 29) - 14) / T(8);
  return v;
}

template <typename T>
void CheckCase(const Case& c, T beta, const OpKernelContext* ctx) {
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const Strides ld{a_cols + c.pad, b_cols + c.pad, c.n + c.pad};
  const std::vector<T> a = Values<T>(a_rows * ld.lda, 1), b = Values<T>(b_rows * ld.ldb, 2);
  std::vector<T> out = Values<T>(c.m * ld.ldc, 3);
  // beta == 0 must ignore what c held, NaN included.
  if (beta == T(0)) out[0] = NAN;
  const std::vector<T> before = out;
  Gemm(GemmShape{c.ta, c.tb, c.m, c.n, c.k}, a.data(), b.data(), beta, out.data(), ld, ctx);
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
    // Padding past each row of c is left alone.
    for (int64_t j = c.n; j < ld.ldc; ++j) ASSERT_EQ(out[i * ld.ldc + j], before[i * ld.ldc + j]);
  }
}

const Case kCases[] = {
    {"row_bands", false, false, 300, 40, 70, 0},
    {"row_bands_bt", false, true, 260, 33, 45, 3},
    {"column_bands", false, false, 40, 700, 50, 0},
    {"column_bands_bt", false, true, 64, 530, 37, 4},
    {"column_bands_both_transposed", true, true, 12, 1030, 20, 2},
    {"split_depth", true, false, 20, 12, 4096, 0},
    {"split_depth_uneven", false, false, 8, 40, 2051, 0},
    {"split_depth_strided", true, false, 9, 32, 3000, 5},
    {"split_depth_plain_a", false, false, 16, 24, 2500, 2},
    {"column_major_result", true, false, 96, 16, 400, 0},
    {"column_major_result_strided", true, false, 130, 20, 2200, 7},
    {"both_transposed", true, true, 70, 50, 90, 1},
};

TEST(Gemm, RoutesMatchAPlainLoop) {
  KernelConstruction info;
  info.device = test::TestCpuDevice();
  const OpKernelContext threaded(&info, nullptr, 0, nullptr, 0, nullptr, nullptr);
  for (const Case& c : kCases) {
    for (const OpKernelContext* ctx : {static_cast<const OpKernelContext*>(nullptr), &threaded}) {
      SCOPED_TRACE(std::string(c.name) + (ctx ? " threaded" : " one thread"));
      CheckCase<float>(c, 0.0f, ctx);
      CheckCase<float>(c, 1.0f, ctx);
      CheckCase<double>(c, 0.0, ctx);
      CheckCase<double>(c, -0.5, ctx);
    }
  }
}

}  // namespace
}  // namespace tfg::gemm_test
