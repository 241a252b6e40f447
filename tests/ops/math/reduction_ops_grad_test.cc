// Gradients of sum, mean, max, min and prod over every kind of axis set,
// with and without keepdims: finite differences in f64, exact values for
// ties (max/min split the gradient evenly, like TensorFlow) and zeros
// (prod), and gradients built on shapes known only at run time.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

const AttrValue kAxes[] = {std::monostate{}, std::vector<int64_t>{0}, std::vector<int64_t>{-1},
                           std::vector<int64_t>{1}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{0, 1, 2},
                           std::vector<int64_t>{}};

TEST(ReductionGrad, MatchesFiniteDifferences) {
  // Distinct values, so max and min have no ties for the differences to trip on.
  const Tensor x = RandomF64({2, 3, 4}, -2, 2, 1);
  for (const char* op : {"sum", "mean", "max", "min", "prod"}) {
    for (const AttrValue& axis : kAxes) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(op) + " axis " + AttrValueToString(axis) + (keepdims ? " keepdims" : ""));
        EXPECT_GRADIENT_OK(op, {x}, {{"axis", axis}, {"keepdims", keepdims}});
      }
    }
  }
}

TEST(ReductionGrad, ScalarAndVectorInputs) {
  for (const char* op : {"sum", "mean", "max", "min", "prod"}) {
    SCOPED_TRACE(op);
    EXPECT_GRADIENT_OK(op, {RandomF64({}, -2, 2, 2)});
    EXPECT_GRADIENT_OK(op, {RandomF64({5}, -2, 2, 3)});
  }
}

// max([1, 3, 3, 2]) ties: each 3 gets half of dy (TensorFlow's rule).
TEST(ReductionGrad, TiesSplitTheGradient) {
  const Tensor x = MakeTensorOf(DType::kF64, {1, 3, 3, 2, -1, -1, 0, 5}, {2, 4});
  auto mx = test::SymbolicGradients("max", {x}, {{"axis", std::vector<int64_t>{1}}},
                                    MakeTensorOf(DType::kF64, {2, 6}, {2}));
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  ExpectTensorNear((*mx)[0], {0, 1, 1, 0, 0, 0, 0, 6}, {2, 4});
  auto mn = test::SymbolicGradients("min", {x}, {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}},
                                    MakeTensorOf(DType::kF64, {2, 6}, {2, 1}));
  ASSERT_TRUE(mn.ok()) << mn.status().ToString();
  ExpectTensorNear((*mn)[0], {2, 0, 0, 0, 3, 3, 0, 0}, {2, 4});
}

// prod with zeros: d/dx_i is the product of the others, exact (no 0/0).
TEST(ReductionGrad, ProdWithZeros) {
  const Tensor x = MakeTensorOf(DType::kF64, {2, 0, 3, 0, 0, 4, 5, 6, 7}, {3, 3});
  auto g = test::SymbolicGradients("prod", {x}, {{"axis", std::vector<int64_t>{1}}},
                                   MakeTensorOf(DType::kF64, {1, 1, 1}, {3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {0, 6, 0, 0, 0, 0, 42, 35, 30}, {3, 3});
}

// x of shape [?, ?] (or unknown rank): mean's divisor and the spread come
// from x's run-time shape.
TEST(ReductionGrad, ShapesKnownOnlyAtRunTime) {
  const Tensor x = RandomF64({3, 4}, -2, 2, 4);
  for (const char* op : {"sum", "mean", "max", "min", "prod"}) {
    for (const AttrValue& axis : {AttrValue(std::monostate{}), AttrValue(std::vector<int64_t>{0})}) {
      for (bool keepdims : {false, true}) {
        SCOPED_TRACE(std::string(op) + " axis " + AttrValueToString(axis) + (keepdims ? " keepdims" : ""));
        const AttrMap attrs{{"axis", axis}, {"keepdims", keepdims}};
        auto y = test::RunGraphOp(op, {x}, attrs);
        ASSERT_TRUE(y.ok()) << y.status().ToString();
        const Tensor dy = RandomF64((*y)[0].shape(), -1, 1, 5);
        auto want = test::SymbolicGradients(op, {x}, attrs, dy);
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
          auto got = test::SymbolicGradients(op, {x}, attrs, dy, {{}, shapes});
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          ExpectTensorNear((*got)[0], test::ToDoubles((*want)[0]), {3, 4}, 1e-15);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tfg
