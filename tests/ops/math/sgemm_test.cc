// tfg's own f32 product (ops/math/sgemm.h) against a plain triple loop in
// double, on shapes that reach every edge of its blocking: partial row and
// column tiles, several depth blocks, several chunks of rows, each operand
// stored transposed, bands of columns and of rows over threads.
#include "ops/math/sgemm.h"

#include <gtest/gtest.h>

#include <string>

#include "ops/core/kernel.h"
#include "ops/math/gemm_avx512.h"
#include "tests/ops/math/gemm_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::sgemm_test {
namespace {

const test::GemmCase kCases[] = {
    {"one_value", false, false, 1, 1, 1, 0},
    {"whole_tiles", false, false, 16, 64, 40, 0},
    {"partial_row_and_column_tiles", false, false, 13, 45, 9, 0},
    {"narrow_c", false, false, 70, 10, 33, 3},
    {"several_depth_blocks", false, false, 17, 40, 1700, 0},
    {"several_column_blocks", false, false, 9, 1000, 20, 1},
    {"a_transposed", true, false, 21, 50, 37, 2},
    {"b_transposed", false, true, 19, 71, 43, 5},
    {"both_transposed", true, true, 26, 36, 800, 1},
    {"b_transposed_partial_groups", false, true, 8, 37, 19, 0},
    // 8M floats of packed a at once: k = 70000 goes in two passes of 48704
    // (64 depth blocks of 761), and c's rows 168 at a time.
    {"several_row_chunks", false, false, 250, 3, 70000, 0},
    {"several_row_chunks_transposed", true, true, 200, 2, 70000, 0},
};

TEST(TiledSgemm, MatchesAPlainLoop) {
  if (!avx512::Available()) GTEST_SKIP() << "tfg's f32 tiles need AVX-512";
  KernelConstruction info;
  info.device = test::TestCpuDevice();
  const OpKernelContext threaded(&info, nullptr, 0, nullptr, 0, nullptr, nullptr);
  for (const test::GemmCase& c : kCases) {
    for (int64_t threads : {1, 2, 4}) {
      SCOPED_TRACE(std::string(c.name) + " threads=" + std::to_string(threads));
      const OpKernelContext* ctx = threads == 1 ? nullptr : &threaded;
      auto product = [ctx, threads](const GemmShape& g, const float* a, const float* b, float beta, float* out,
                                    Strides ld) { TiledSgemm(g, a, b, beta, out, ld, ctx, threads); };
      for (float beta : {0.0f, 1.0f, -0.5f}) test::ExpectProductMatchesLoop(c, beta, product);
    }
  }
}

}  // namespace
}  // namespace tfg::sgemm_test
