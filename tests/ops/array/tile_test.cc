// tile vs numpy.tile(arange(6).reshape(2, 3), (2, 3)).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(TileOpTest, Repeats) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("tile", {Iota(dtype, {2, 3})}, {{"multiples", Ints{2, 3}}}, dtype, {4, 9},
             {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5,
              0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5});
  }
  ExpectOp("tile", {Iota(DType::kI32, {2, 3})}, {{"multiples", Ints{1, 0}}}, DType::kI32, {2, 0}, {});
  ExpectOp("tile", {Make(DType::kI32, {8}, {})}, {{"multiples", Ints{}}}, DType::kI32, {}, {8});
}

TEST(TileOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("tile", {Iota(DType::kF32, {2, 3})}, {{"multiples", Ints{2}}}), Code::kInvalidArgument,
              "tile: multiples [2] has 1 entries but the input [2, 3] has rank 2");
  ExpectError(RunOp1("tile", {Iota(DType::kF32, {2})}, {{"multiples", Ints{-1}}}), Code::kInvalidArgument,
              "must be >= 0");
  EXPECT_EQ(InferShapesString("tile", {PartialShape({-1, 3})}, {DType::kF32}, {{"multiples", Ints{2, 2}}}),
            "[?, 6]");
}

TEST(TileOpTest, LargeInputsAcrossThreads) {
  // tile(x, [3, 2]) of a 400x5 iota: out[i, j] = x[i % 400, j % 5].
  auto r = RunOp1("tile", {Iota(DType::kF32, {400, 5})}, {{"multiples", Ints{3, 2}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shape(), TensorShape({1200, 10}));
  for (int64_t i = 0; i < 1200; i += 11) {
    for (int64_t j = 0; j < 10; ++j) ASSERT_EQ(r->data<float>()[10 * i + j], 5.0f * (i % 400) + (j % 5));
  }
}

TEST(TileOpTest, Gradients) {
  EXPECT_GRADIENT_OK("tile", {RandomF64({2, 3})}, {{"multiples", Ints{2, 3}}});
  EXPECT_GRADIENT_OK("tile", {RandomF64({3})}, {{"multiples", Ints{1}}});
  EXPECT_GRADIENT_OK("tile", {RandomF64({2, 2})}, {{"multiples", Ints{0, 2}}});
}

TEST(TileOpTest, GradientWithShapesKnownOnlyAtRunTime) {
  ExpectGradientShapeAgnostic("tile", {RandomF64({2, 3})}, {{"multiples", Ints{2, 3}}});
  ExpectGradientShapeAgnostic("tile", {RandomF64({2, 1, 2})}, {{"multiples", Ints{1, 4, 2}}});
}

}  // namespace
}  // namespace tfg::test
