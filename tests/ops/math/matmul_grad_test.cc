// Gradients of matmul: finite differences in f64 for every transpose
// combination, batched products, and batch dimensions that broadcast (whose
// gradients are summed back to each input's shape); plus gradients built on
// shapes known only at run time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::matmul_grad_test {
namespace {

using test::RandomF64;

struct Case {
  TensorShape a, b;  // as stored, i.e. before the transposes
  bool ta, tb;
};

const Case kCases[] = {
    {{2, 3}, {3, 4}, false, false},
    {{3, 2}, {3, 4}, true, false},
    {{2, 3}, {4, 3}, false, true},
    {{3, 2}, {4, 3}, true, true},
    {{2, 2, 3}, {2, 3, 4}, false, false},        // batched
    {{2, 3, 2}, {2, 4, 3}, true, true},          // batched, both transposed
    {{2, 2, 3}, {3, 4}, false, false},           // b shared by the batch
    {{2, 3}, {3, 3, 4}, false, false},           // a shared by the batch
    {{1, 2, 3}, {3, 3, 4}, false, false},        // batch dim of size 1
    {{2, 1, 2, 3}, {3, 4, 3}, false, true},      // [2, 1] x [3] -> [2, 3]
    {{3, 2, 2}, {2, 1, 2, 4}, true, false},      // [3] x [2, 1] -> [2, 3]
};

AttrMap Attrs(const Case& c) { return {{"transpose_a", c.ta}, {"transpose_b", c.tb}}; }

std::string Name(const Case& c) {
  return c.a.ToString() + (c.ta ? "T" : "") + " @ " + c.b.ToString() + (c.tb ? "T" : "");
}

TEST(MatMulGrad, MatchesFiniteDifferences) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(Name(c));
    EXPECT_GRADIENT_OK("matmul", {RandomF64(c.a, -1, 1, 1), RandomF64(c.b, -1, 1, 2)}, Attrs(c));
  }
}

// Gradients built on [?, ...] placeholders (and on unknown ranks) give the
// numbers of the statically shaped graph.
TEST(MatMulGrad, ShapesKnownOnlyAtRunTime) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(Name(c));
    const Tensor a = RandomF64(c.a, -1, 1, 3), b = RandomF64(c.b, -1, 1, 4);
    auto product = test::RunGraphOp("matmul", {a, b}, Attrs(c));
    ASSERT_TRUE(product.ok()) << product.status().ToString();
    const Tensor dy = RandomF64((*product)[0].shape(), -1, 1, 5);
    auto want = test::SymbolicGradients("matmul", {a, b}, Attrs(c), dy);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
      auto got = test::SymbolicGradients("matmul", {a, b}, Attrs(c), dy, {{}, shapes});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (int i = 0; i < 2; ++i) {
        test::ExpectTensorNear((*got)[i], test::ToDoubles((*want)[i]), (*want)[i].shape(), 1e-14);
      }
    }
  }
}

// A hand-checked case: a = [[1, 2]], b = [[3], [4]], dy = [[5]]:
// da = dy bᵀ = [[15, 20]], db = aᵀ dy = [[5], [10]].
TEST(MatMulGrad, SmallProductByHand) {
  auto g = test::SymbolicGradients("matmul",
                                   {test::MakeTensorOf(DType::kF32, {1, 2}, {1, 2}),
                                    test::MakeTensorOf(DType::kF32, {3, 4}, {2, 1})},
                                   {}, test::MakeTensorOf(DType::kF32, {5}, {1, 1}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  test::ExpectTensorNear((*g)[0], {15, 20}, {1, 2});
  test::ExpectTensorNear((*g)[1], {5, 10}, {2, 1});
}

}  // namespace
}  // namespace tfg::matmul_grad_test
