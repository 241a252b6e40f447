// Gradient of cast: float-to-float casts pass the gradient back in the
// source dtype; casts through integers pass none.
#include <gtest/gtest.h>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::MakeTensorOf;

TEST(CastGrad, FloatToFloatPassesTheGradientBack) {
  EXPECT_GRADIENT_OK("cast", {test::RandomF64({2, 3})}, {{"DstT", DType::kF64}});
  auto g = test::SymbolicGradients("cast", {MakeTensorOf(DType::kF64, {1, 2}, {2})}, {{"DstT", DType::kF32}},
                                   MakeTensorOf(DType::kF32, {0.5, -3}, {2}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)[0].dtype(), DType::kF64);
  test::ExpectTensorNear((*g)[0], {0.5, -3}, {2});
  auto h = test::SymbolicGradients("cast", {MakeTensorOf(DType::kF16, {1, 2}, {2})}, {{"DstT", DType::kF32}},
                                   MakeTensorOf(DType::kF32, {0.5, -3}, {2}));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ((*h)[0].dtype(), DType::kF16);
  test::ExpectTensorNear((*h)[0], {0.5, -3}, {2});
}

TEST(CastGrad, IntegerInputGetsNone) {
  // The i32 input is not differentiable; asking for it is refused by name.
  auto g = test::SymbolicGradients("cast", {MakeTensorOf(DType::kI32, {1, 2}, {2})}, {{"DstT", DType::kF32}},
                                   MakeTensorOf(DType::kF32, {1, 1}, {2}), {{0}, test::FeedShapes::kStatic});
  test::ExpectError(g, Code::kInvalidArgument, "is i32; gradients need a float tensor");
}

}  // namespace
}  // namespace tfg
