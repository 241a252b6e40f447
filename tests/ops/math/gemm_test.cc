// tfg::Gemm on the shapes that take its different routes (row bands over
// threads, column bands when c has few rows, a split of k with partial
// sums, Eigen's column-major result for a transposed a with a long k; the
// bands and the column-major result are f64's, f32 shares itself out in
// sgemm.cc), against a plain triple loop in double.
#include "ops/math/gemm.h"

#include <gtest/gtest.h>

#include <string>

#include "ops/core/kernel.h"
#include "tests/ops/math/gemm_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::gemm_test {
namespace {

const test::GemmCase kCases[] = {
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
  for (const test::GemmCase& c : kCases) {
    for (const OpKernelContext* ctx : {static_cast<const OpKernelContext*>(nullptr), &threaded}) {
      SCOPED_TRACE(std::string(c.name) + (ctx ? " threaded" : " one thread"));
      auto gemm = [ctx](const GemmShape& g, const auto* a, const auto* b, auto beta, auto* out, Strides ld) {
        Gemm(g, a, b, beta, out, ld, ctx);
      };
      test::ExpectProductMatchesLoop<float>(c, 0.0f, gemm);
      test::ExpectProductMatchesLoop<float>(c, 1.0f, gemm);
      test::ExpectProductMatchesLoop<double>(c, 0.0, gemm);
      test::ExpectProductMatchesLoop<double>(c, -0.5, gemm);
    }
  }
}

}  // namespace
}  // namespace tfg::gemm_test
