// Gradients of the binary arithmetic ops: finite differences in f64 for
// every broadcasting pattern, exact values where TensorFlow's conventions
// decide (ties of maximum/minimum, pow's exponent gradient at x <= 0), and
// broadcast gradients built on shapes known only at run time.
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

struct Shapes {
  TensorShape x, y;
};

const Shapes kShapes[] = {
    {{2, 3}, {2, 3}}, {{2, 3}, {3}}, {{3}, {2, 3}}, {{2, 1}, {1, 3}}, {{}, {2, 3}}, {{2, 3}, {}}, {{2, 1, 3}, {4, 1}},
};

TEST(CwiseBinaryGrad, MatchesFiniteDifferencesWhenBroadcasting) {
  for (const char* op : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    for (const Shapes& s : kShapes) {
      SCOPED_TRACE(std::string(op) + " " + s.x.ToString() + " " + s.y.ToString());
      // div's divisor stays away from 0; maximum/minimum's operands never tie.
      EXPECT_GRADIENT_OK(op, {RandomF64(s.x, -2, 2, 1), RandomF64(s.y, 0.5, 2, 2)});
    }
  }
}

TEST(CwiseBinaryGrad, PowMatchesFiniteDifferences) {
  for (const Shapes& s : kShapes) {
    SCOPED_TRACE(s.x.ToString() + " " + s.y.ToString());
    EXPECT_GRADIENT_OK("pow", {RandomF64(s.x, 0.5, 2, 3), RandomF64(s.y, -2, 2, 4)});
  }
}

// TensorFlow: d(x^y)/dy = 0 where x <= 0 (not NaN); dx = y x^(y-1).
TEST(CwiseBinaryGrad, PowExponentGradientIsZeroWhereBaseIsNotPositive) {
  const Tensor x = MakeTensorOf(DType::kF64, {0, 2, -1}, {3});
  const Tensor y = MakeTensorOf(DType::kF64, {2, 3, 2}, {3});
  auto g = test::SymbolicGradients("pow", {x, y}, {}, MakeTensorOf(DType::kF64, {1, 1, 1}, {3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {0, 12, -2}, {3});
  ExpectTensorNear((*g)[1], {0, 5.545177444479562, 0}, {3}, 1e-14);  // 8 ln 2
}

// Ties: maximum gives the gradient to x where x >= y, minimum where x <= y.
TEST(CwiseBinaryGrad, TiesGoToX) {
  const Tensor x = MakeTensorOf(DType::kF64, {1, 2, 3}, {3});
  const Tensor y = MakeTensorOf(DType::kF64, {1, 0, 5}, {3});
  const Tensor dz = MakeTensorOf(DType::kF64, {10, 20, 30}, {3});
  auto mx = test::SymbolicGradients("maximum", {x, y}, {}, dz);
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  ExpectTensorNear((*mx)[0], {10, 20, 0}, {3});
  ExpectTensorNear((*mx)[1], {0, 0, 30}, {3});
  auto mn = test::SymbolicGradients("minimum", {x, y}, {}, dz);
  ASSERT_TRUE(mn.ok()) << mn.status().ToString();
  ExpectTensorNear((*mn)[0], {10, 0, 30}, {3});
  ExpectTensorNear((*mn)[1], {0, 20, 0}, {3});
}

// x [?, ?] + y [?]: the broadcast is only known at run time, and the
// gradient for y must still be summed over the rows.
TEST(CwiseBinaryGrad, UnbroadcastsShapesKnownOnlyAtRunTime) {
  const Tensor x = RandomF64({2, 3}, -1, 1, 5);
  const Tensor y = RandomF64({3}, 0.5, 2, 6);
  const Tensor dz = MakeTensorOf(DType::kF64, {1, 2, 3, 4, 5, 6}, {2, 3});
  for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
    auto g = test::SymbolicGradients("add", {x, y}, {}, dz, {{}, shapes});
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ExpectTensorNear((*g)[0], {1, 2, 3, 4, 5, 6}, {2, 3});
    ExpectTensorNear((*g)[1], {5, 7, 9}, {3});
    auto m = test::SymbolicGradients("mul", {y, x}, {}, dz, {{}, shapes});
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const double* px = x.data<double>();
    ExpectTensorNear((*m)[0], {px[0] + 4 * px[3], 2 * px[1] + 5 * px[4], 3 * px[2] + 6 * px[5]}, {3}, 1e-15);
  }
}

TEST(CwiseBinaryGrad, FloordivHasNoGradient) {
  auto r = test::SymbolicGradients("floordiv", {RandomF64({3}, 1, 2), RandomF64({3}, 1, 2)}, {}, RandomF64({3}));
  test::ExpectError(r, Code::kInvalidArgument,
                    "every path from it to the result passes through an op that has no gradient");
}

// x % y = x - floor(x / y) * y: dz for x, -dz * floor(x / y) for y, worked
// by hand: floor(7.5 / 2) = 3, floor(-7.5 / 2) = -4, floor(7.5 / -2) = -4.
TEST(CwiseBinaryGrad, ModSlopesAreOneAndMinusTheQuotient) {
  const Tensor x = test::MakeTensorOf(DType::kF64, {7.5, -7.5, 7.5}, {3});
  const Tensor y = test::MakeTensorOf(DType::kF64, {2, 2, -2}, {3});
  const Tensor dz = test::MakeTensorOf(DType::kF64, {1, 2, 3}, {3});
  auto r = test::SymbolicGradients("mod", {x, y}, {}, dz);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorNear((*r)[0], {1, 2, 3}, {3});
  ExpectTensorNear((*r)[1], {-3, 8, 12}, {3});
}

}  // namespace
}  // namespace tfg
