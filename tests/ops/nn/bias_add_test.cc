// bias_add and bias_add_grad: values from NumPy (x + b; dy.sum(axis=(0, 1))).
#include <gtest/gtest.h>

#include "ops/nn/bias_add.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::Gen;

TEST(BiasAdd, AddsAlongTheLastDimension) {
  for (DType dt : {DType::kF16, DType::kF32, DType::kF64}) {
    Tensor x = Gen(dt, {2, 3, 4}, 5, 1, 9, 8.0);
    Tensor b = test::MakeTensorOf(dt, {0.5, -1.0, 2.0, 0.25}, {4});
    ExpectTensorNear(test::Eval("bias_add", {x, b}),
                     {0.125, -0.75,  1.75, 0.625, 0.375, -0.5,   2.0,   -0.25, 0.625, -1.375, 2.25,  0.0,
                      0.875, -1.125, 2.5,  0.25,  0.0,   -0.875, 1.625, 0.5,   0.25,  -0.625, 1.875, 0.75},
                     {2, 3, 4}, test::Tol(dt));
    ExpectTensorNear(test::Eval("bias_add_grad", {Gen(dt, {2, 3, 4}, 3, 2, 7, 2.0)}), {-0.5, 1.5, 0.0, -1.5}, {4},
                     test::Tol(dt));
  }
  test::ExpectTensorEq<int32_t>(test::Eval("bias_add", {test::MakeTensor<int32_t>({1, 2, 3, 4}, {2, 2}),
                                                        test::MakeTensor<int32_t>({10, 20}, {2})}),
                                {11, 22, 13, 24}, {2, 2});
}

TEST(BiasAdd, GradSumsManyRows) {
  // 1000 rows of [1, 2, 3]: more than one block of partial sums.
  std::vector<float> v;
  for (int r = 0; r < 1000; ++r) v.insert(v.end(), {1, 2, 3});
  ExpectTensorNear(test::Eval("bias_add_grad", {test::MakeTensor<float>(v, {10, 100, 3})}), {1000, 2000, 3000}, {3});
}

TEST(BiasAdd, ShapesAndErrors) {
  const std::vector<DType> f32 = {DType::kF32, DType::kF32};
  EXPECT_EQ(test::InferShapesString("bias_add", {PartialShape({-1, 28, 28, -1}), PartialShape({32})}, f32),
            "[?, 28, 28, 32]");
  EXPECT_EQ(test::InferShapesString("bias_add", {PartialShape({4, 10}), PartialShape({9})}, f32),
            "bias_add: bias has 9 elements but the last dimension of value [4, 10] is 10");
  EXPECT_EQ(test::InferShapesString("bias_add", {PartialShape({4, 10}), PartialShape({1, 10})}, f32),
            "bias_add: bias must be a vector, got shape [1, 10]");
  EXPECT_EQ(test::InferShapesString("bias_add_grad", {PartialShape({-1, 7})}, {DType::kF32}), "[7]");
  test::ExpectError(
      test::RunKernel("bias_add", {test::MakeTensor<float>({}, {2, 3}), test::MakeTensor<float>({}, {2})}),
      Code::kInvalidArgument, "bias_add: bias of shape [2] does not match the last dimension of value [2, 3]");
}

// The checks the CPU and GPU kernels share (ops/nn/bias_add.h).
TEST(BiasAddLayout, RowsOfChannels) {
  auto l = nn::BiasAddLayout({6, 4, 5}, {5});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(std::make_tuple(l->rows, l->channels), std::make_tuple(24, 5));
  auto empty = nn::BiasAddLayout({3, 0}, {0});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(std::make_tuple(empty->rows, empty->channels), std::make_tuple(0, 0));
  EXPECT_EQ(nn::BiasAddLayout({6, 4, 5}, {4}).status().message(),
            "bias_add: bias of shape [4] does not match the last dimension of value [6, 4, 5]");
  EXPECT_EQ(nn::BiasAddLayout({}, {1}).status().message(),
            "bias_add: bias of shape [1] does not match the last dimension of value []");
  auto grad = nn::BiasAddGradLayout({6, 4, 5});
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ(std::make_tuple(grad->rows, grad->channels), std::make_tuple(24, 5));
  EXPECT_EQ(nn::BiasAddGradLayout({}).status().message(),
            "bias_add_grad: out_backprop must have rank >= 1, got a scalar");
}

TEST(BiasAddGradient, FiniteDifferences) {
  EXPECT_GRADIENT_OK("bias_add", {test::RandomF64({2, 3, 4}, -1, 1, 71), test::RandomF64({4}, -1, 1, 72)});
  EXPECT_GRADIENT_OK("bias_add_grad", {test::RandomF64({3, 2, 5}, -1, 1, 73)});
}

}  // namespace
}  // namespace tfg
