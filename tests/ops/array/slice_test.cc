// slice vs NumPy: arange(24).reshape(2, 3, 4)[1:2, 0:3, 1:3].
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(SliceOpTest, Blocks) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("slice", {Iota(dtype, {2, 3, 4})}, {{"begin", Ints{1, 0, 1}}, {"size", Ints{1, 3, 2}}}, dtype,
             {1, 3, 2}, {13, 14, 17, 18, 21, 22});
    ExpectOp("slice", {Iota(dtype, {2, 3, 4})}, {{"begin", Ints{1, 0, 1}}, {"size", Ints{-1, -1, 2}}}, dtype,
             {1, 3, 2}, {13, 14, 17, 18, 21, 22});
  }
  ExpectOp("slice", {Iota(DType::kF32, {3})}, {{"begin", Ints{3}}, {"size", Ints{0}}}, DType::kF32, {0}, {});
  ExpectOp("slice", {Make(DType::kF32, {2}, {})}, {{"begin", Ints{}}, {"size", Ints{}}}, DType::kF32, {}, {2});
}

TEST(SliceOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("slice", {Iota(DType::kF32, {2, 3})}, {{"begin", Ints{0, 2}}, {"size", Ints{1, 2}}}),
              Code::kInvalidArgument, "begin 2 with size 2 is out of range in dimension 1 of input [2, 3]");
  ExpectError(RunOp1("slice", {Iota(DType::kF32, {2, 3})}, {{"begin", Ints{0}}, {"size", Ints{1}}}),
              Code::kInvalidArgument, "must both have one entry per dimension");
  EXPECT_EQ(InferShapesString("slice", {PartialShape({-1, 5})}, {DType::kF32},
                              {{"begin", Ints{1, 1}}, {"size", Ints{-1, -1}}}),
            "[?, 4]");
}

TEST(SliceOpTest, Gradients) {
  EXPECT_GRADIENT_OK("slice", {RandomF64({2, 3, 4})}, {{"begin", Ints{1, 0, 1}}, {"size", Ints{1, -1, 2}}});
}

}  // namespace
}  // namespace tfg::test
