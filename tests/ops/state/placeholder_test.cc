#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

TEST(PlaceholderTest, ShapeComesFromTheAttr) {
  EXPECT_EQ(test::InferShapesString("placeholder", {}, {}, {{"dtype", DType::kF32}, {"shape", PartialShape({-1, 784})}}),
            "[?, 784]");
  EXPECT_EQ(test::InferShapesString("placeholder", {}, {}, {{"dtype", DType::kI64}}), "<unknown>");
}

TEST(PlaceholderTest, RunningItUnfedIsAnError) {
  auto out = test::RunKernel("placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({-1, 784})}});
  // RunKernel names the node after the op.
  test::ExpectError(out, Code::kInvalidArgument, "placeholder 'placeholder' must be fed (declared f32[?, 784])");
  out = test::RunKernel("placeholder", {}, {{"dtype", DType::kBool}});
  test::ExpectError(out, Code::kInvalidArgument, "must be fed (declared bool (any shape))");
}

}  // namespace
}  // namespace tfg
