// clip_by_value: values from NumPy, np.minimum(np.maximum(t, min), max), and
// TensorFlow 2's gradient rule written in NumPy (np.where on t < min, t > max).
#include <gtest/gtest.h>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensor;

TEST(ClipByValue, ScalarAndBroadcastBounds) {
  Tensor t = MakeTensor<float>({-2, -1, 0, 1, 2, 3}, {2, 3});
  ExpectTensorNear(test::Eval("clip_by_value", {t, Tensor::Scalar<float>(0), Tensor::Scalar<float>(2)}),
                   {0, 0, 0, 1, 2, 2}, {2, 3});
  // min [3] and max [2, 1]; in the first row min 1 > max 0.5 and max wins.
  Tensor lo = MakeTensor<float>({-1, 0, 1}, {3});
  Tensor hi = MakeTensor<float>({0.5, 2.5}, {2, 1});
  ExpectTensorNear(test::Eval("clip_by_value", {t, lo, hi}), {-1.0, 0.0, 0.5, 1.0, 2.0, 2.5}, {2, 3});
  auto grads = test::RunOp("clip_by_value_grad", {MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}), t, lo, hi});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  ExpectTensorNear((*grads)[0], {0.0, 0.0, 0.0, 4.0, 5.0, 0.0}, {2, 3});
  ExpectTensorNear((*grads)[1], {1, 2, 3, 0, 0, 0}, {2, 3});
  ExpectTensorNear((*grads)[2], {0, 0, 0, 0, 0, 6}, {2, 3});
}

TEST(ClipByValue, IntegersAndNaN) {
  test::ExpectTensorEq<int64_t>(test::Eval("clip_by_value", {MakeTensor<int64_t>({-5, 5, 50}, {3}),
                                                             Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(10)}),
                                {0, 5, 10}, {3});
  ExpectTensorNear(test::Eval("clip_by_value", {MakeTensor<double>({NAN, 3}, {2}), Tensor::Scalar<double>(0),
                                                Tensor::Scalar<double>(1)}),
                   {NAN, 1}, {2});
}

TEST(ClipByValue, BoundsMustBroadcastToT) {
  const std::vector<DType> f32(3, DType::kF32);
  EXPECT_EQ(test::InferShapesString("clip_by_value", {PartialShape({-1, 3}), PartialShape({}), PartialShape({3})}, f32),
            "[?, 3]");
  EXPECT_EQ(test::InferShapesString("clip_by_value", {PartialShape({2, 3}), PartialShape({4}), PartialShape({})}, f32),
            "clip_by_value: clip_value_min of shape [4] does not broadcast to t's shape [2, 3]");
  EXPECT_EQ(test::InferShapesString("clip_by_value", {PartialShape({3}), PartialShape({}), PartialShape({2, 3})}, f32),
            "clip_by_value: clip_value_max of shape [2, 3] does not broadcast to t's shape [3]");
  test::ExpectError(test::RunKernel("clip_by_value", {MakeTensor<float>({1, 2}, {2}), MakeTensor<float>({0, 0, 0}, {3}),
                                                      Tensor::Scalar<float>(1)}),
                    Code::kInvalidArgument, "clip_value_min of shape [3] does not broadcast to t's shape [2]");
}

TEST(ClipByValueGradient, FiniteDifferences) {
  // t in [-3, 3) against min in [-1, 0) and max in [0.5, 1.5): all three
  // cases occur, none at a boundary.
  Tensor t = test::RandomF64({2, 3}, -3, 3, 101);
  EXPECT_GRADIENT_OK("clip_by_value", {t, test::RandomF64({3}, -1, 0, 102), test::RandomF64({2, 1}, 0.5, 1.5, 103)});
  EXPECT_GRADIENT_OK("clip_by_value", {t, test::RandomF64({}, -1, 0, 104), test::RandomF64({}, 0.5, 1.5, 105)});
}

}  // namespace
}  // namespace tfg
