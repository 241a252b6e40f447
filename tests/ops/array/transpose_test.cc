// transpose vs numpy.transpose on t = arange(24).reshape(2, 3, 4).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(TransposeOpTest, DefaultReversesDims) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("transpose", {Iota(dtype, {2, 3, 4})}, {}, dtype, {4, 3, 2},
             {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23});
  }
}

TEST(TransposeOpTest, ExplicitPerms) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("transpose", {Iota(dtype, {2, 3, 4})}, {{"perm", Ints{1, 0, 2}}}, dtype, {3, 2, 4},
             {0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23});
    ExpectOp("transpose", {Iota(dtype, {2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}, dtype, {4, 2, 3},
             {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  }
}

TEST(TransposeOpTest, ScalarsZeroSizeAndLargeInputs) {
  ExpectOp("transpose", {Make(DType::kF32, {5}, {})}, {}, DType::kF32, {}, {5});
  ExpectOp("transpose", {Iota(DType::kI32, {0, 3})}, {}, DType::kI32, {3, 0}, {});
  // A 300x200 matrix (sharded over threads): element [i, j] of the result
  // is i*... : y[j, i] = x[i, j] = 200*i + j.
  auto r = RunOp1("transpose", {Iota(DType::kF64, {300, 200})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shape(), TensorShape({200, 300}));
  for (int64_t j = 0; j < 200; j += 37) {
    for (int64_t i = 0; i < 300; i += 41) EXPECT_EQ(r->data<double>()[j * 300 + i], 200.0 * i + j);
  }
}

TEST(TransposeOpTest, ShapesAndErrors) {
  EXPECT_EQ(InferShapesString("transpose", {PartialShape({-1, 3, 5})}, {DType::kF32}, {{"perm", Ints{2, 0, 1}}}),
            "[5, ?, 3]");
  EXPECT_EQ(InferShapesString("transpose", {PartialShape::Unknown()}, {DType::kF32}, {{"perm", Ints{1, 0}}}),
            "[?, ?]");
  EXPECT_EQ(InferShapesString("transpose", {PartialShape({2, 3})}, {DType::kF32}, {{"perm", Ints{0, 0}}}),
            "transpose: perm [0, 0] is not a permutation of the 2 dimensions");
  ExpectError(RunOp1("transpose", {Iota(DType::kF32, {2, 3})}, {{"perm", Ints{1, 0, 2}}}), Code::kInvalidArgument,
              "perm [1, 0, 2] has 3 entries but the input has rank 2");
}

TEST(TransposeOpTest, Gradients) {
  EXPECT_GRADIENT_OK("transpose", {RandomF64({2, 3, 4})});
  EXPECT_GRADIENT_OK("transpose", {RandomF64({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}});
  EXPECT_GRADIENT_OK("transpose", {RandomF64({2, 3, 4})}, {{"perm", Ints{-2, -1, 0}}});
}

}  // namespace
}  // namespace tfg::test
