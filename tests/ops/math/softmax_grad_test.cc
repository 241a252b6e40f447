// Gradients of softmax and log_softmax along each axis: finite differences
// in f64, and gradients built on shapes known only at run time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::RandomF64;

TEST(SoftmaxGrad, MatchesFiniteDifferences) {
  for (const char* op : {"softmax", "log_softmax"}) {
    for (int64_t axis : {-1, 0, 1}) {
      SCOPED_TRACE(std::string(op) + " axis " + std::to_string(axis));
      EXPECT_GRADIENT_OK(op, {RandomF64({2, 3, 4}, -3, 3, 1)}, {{"axis", axis}});
    }
    EXPECT_GRADIENT_OK(op, {RandomF64({5}, -3, 3, 2)});
  }
}

// softmax is shift-invariant along its axis: a gradient that is constant
// along the axis gives zero.
TEST(SoftmaxGrad, ConstantUpstreamGradientGivesZero) {
  auto g = test::SymbolicGradients("softmax", {RandomF64({2, 3}, -3, 3, 3)}, {},
                                   test::MakeTensorOf(DType::kF64, {1, 1, 1, 2, 2, 2}, {2, 3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  test::ExpectTensorNear((*g)[0], std::vector<double>(6, 0.0), {2, 3}, 1e-15);
}

TEST(SoftmaxGrad, ShapesKnownOnlyAtRunTime) {
  const Tensor x = RandomF64({3, 4}, -3, 3, 4);
  const Tensor dy = RandomF64({3, 4}, -1, 1, 5);
  for (const char* op : {"softmax", "log_softmax"}) {
    SCOPED_TRACE(op);
    auto want = test::SymbolicGradients(op, {x}, {}, dy);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
      auto got = test::SymbolicGradients(op, {x}, {}, dy, {{}, shapes});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      test::ExpectTensorNear((*got)[0], test::ToDoubles((*want)[0]), {3, 4}, 1e-15);
    }
  }
}

}  // namespace
}  // namespace tfg
