#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(ReshapeOpTest, KeepsRowMajorOrder) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("reshape", {Iota(dtype, {2, 3})}, {{"shape", Ints{3, 2}}}, dtype, {3, 2}, {0, 1, 2, 3, 4, 5});
    ExpectOp("reshape", {Iota(dtype, {2, 3})}, {{"shape", Ints{-1}}}, dtype, {6}, {0, 1, 2, 3, 4, 5});
  }
}

TEST(ReshapeOpTest, InfersMinusOne) {
  ExpectOp("reshape", {Iota(DType::kF32, {2, 3, 4})}, {{"shape", Ints{4, -1}}}, DType::kF32, {4, 6},
           {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23});
  ExpectOp("reshape", {Make(DType::kI64, {7}, {})}, {{"shape", Ints{1, 1}}}, DType::kI64, {1, 1}, {7});
  ExpectOp("reshape", {Make(DType::kI64, {7}, {1, 1})}, {{"shape", Ints{}}}, DType::kI64, {}, {7});
  ExpectOp("reshape", {Iota(DType::kF32, {0, 4})}, {{"shape", Ints{2, -1}}}, DType::kF32, {2, 0}, {});
}

TEST(ReshapeOpTest, ErrorsNameBothShapes) {
  ExpectError(RunOp1("reshape", {Iota(DType::kF32, {2, 3})}, {{"shape", Ints{4}}}), Code::kInvalidArgument,
              "cannot reshape a tensor of shape [2, 3] (6 elements) into shape [4] (4 elements)");
  ExpectError(RunOp1("reshape", {Iota(DType::kF32, {2, 3})}, {{"shape", Ints{4, -1}}}), Code::kInvalidArgument,
              "cannot reshape a tensor of shape [2, 3] (6 elements) into shape [4, -1]");
  ExpectError(RunOp1("reshape", {Iota(DType::kF32, {2, 3})}, {{"shape", Ints{-1, -1}}}), Code::kInvalidArgument,
              "more than one -1");
  ExpectError(RunOp1("reshape", {Iota(DType::kF32, {0, 3})}, {{"shape", Ints{0, -1}}}), Code::kInvalidArgument,
              "cannot reshape");
}

TEST(ReshapeOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("reshape", {PartialShape({-1, 28, 28})}, {DType::kF32}, {{"shape", Ints{-1, 784}}}),
            "[?, 784]");
  EXPECT_EQ(InferShapesString("reshape", {PartialShape({4, 7})}, {DType::kF32}, {{"shape", Ints{2, -1}}}), "[2, 14]");
  EXPECT_EQ(InferShapesString("reshape", {PartialShape::Unknown()}, {DType::kF32}, {{"shape", Ints{3, 3}}}),
            "[3, 3]");
  EXPECT_EQ(InferShapesString("reshape", {PartialShape({4, 7})}, {DType::kF32}, {{"shape", Ints{5}}}),
            "reshape: cannot reshape a tensor of shape [4, 7] (28 elements) into shape [5] (5 elements)");
}

TEST(ReshapeOpTest, Gradients) {
  EXPECT_GRADIENT_OK("reshape", {RandomF64({2, 3})}, {{"shape", Ints{3, -1}}});
  GradCheckOptions wrt_x;
  wrt_x.wrt = {0};
  EXPECT_GRADIENT_OK("reshape_like", {RandomF64({2, 3}), RandomF64({6, 1})}, {}, wrt_x);
}

TEST(ReshapeOpTest, ReshapeLike) {
  ExpectOp("reshape_like", {Iota(DType::kString, {2, 3}), Iota(DType::kF32, {3, 2})}, {}, DType::kString, {3, 2},
           {0, 1, 2, 3, 4, 5});
  ExpectError(RunOp1("reshape_like", {Iota(DType::kF32, {2, 3}), Iota(DType::kF32, {4})}), Code::kInvalidArgument,
              "reshape_like: cannot reshape [2, 3] (6 elements) like [4] (4 elements)");
  EXPECT_EQ(InferShapesString("reshape_like", {PartialShape({-1, 3}), PartialShape({-1})}, {DType::kF32, DType::kI32}),
            "[?]");
}

}  // namespace
}  // namespace tfg::test
