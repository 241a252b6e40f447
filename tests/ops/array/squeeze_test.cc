#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(SqueezeOpTest, AllOrListedDims) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("squeeze", {Iota(dtype, {1, 2, 1, 3})}, {}, dtype, {2, 3}, {0, 1, 2, 3, 4, 5});
    ExpectOp("squeeze", {Iota(dtype, {1, 2, 1, 3})}, {{"axis", Ints{-2}}}, dtype, {1, 2, 3}, {0, 1, 2, 3, 4, 5});
  }
  ExpectOp("squeeze", {Iota(DType::kF32, {1, 1})}, {}, DType::kF32, {}, {0});
  ExpectOp("squeeze", {Iota(DType::kF32, {1, 0})}, {}, DType::kF32, {0}, {});
}

TEST(SqueezeOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("squeeze", {Iota(DType::kF32, {1, 2})}, {{"axis", Ints{1}}}), Code::kInvalidArgument,
              "squeeze: cannot squeeze dimension 1 of shape [1, 2]: its size is 2, not 1");
  ExpectError(RunOp1("squeeze", {Iota(DType::kF32, {1, 2})}, {{"axis", Ints{2}}}), Code::kInvalidArgument,
              "axis 2 is out of range");
  // Known through axis; unknown dims without axis make the rank unknown.
  EXPECT_EQ(InferShapesString("squeeze", {PartialShape({-1, 1, 3})}, {DType::kF32}, {{"axis", Ints{1}}}), "[?, 3]");
  EXPECT_EQ(InferShapesString("squeeze", {PartialShape({-1, 1, 3})}, {DType::kF32}), "<unknown>");
  EXPECT_EQ(InferShapesString("squeeze", {PartialShape({1, 4, 1})}, {DType::kF32}), "[4]");
}

TEST(SqueezeOpTest, Gradients) {
  EXPECT_GRADIENT_OK("squeeze", {RandomF64({1, 3, 1})});
  EXPECT_GRADIENT_OK("squeeze", {RandomF64({1, 3, 1})}, {{"axis", Ints{0}}});
}

}  // namespace
}  // namespace tfg::test
