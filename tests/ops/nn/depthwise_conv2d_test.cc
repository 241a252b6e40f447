// depthwise_conv2d and its backprops. Expected values recorded from
// TensorFlow 2 (tf.nn.depthwise_conv2d, its tf.GradientTape gradients) for
// x = np.arange(40).reshape(1, 4, 5, 2) % 7 - 3,
// f = np.arange(36).reshape(3, 3, 2, 2) % 5 - 2, w = np.arange(24) % 3 - 1.
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

std::vector<double> DepthwisePattern(int n, int mod, int shift) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i % mod - shift);
  return v;
}

AttrMap DepthwiseWindow(std::vector<int64_t> strides, const std::string& padding, std::vector<int64_t> dilations = {1, 1}) {
  return {{"strides", strides}, {"padding", padding}, {"dilations", dilations}};
}

class DepthwiseConv2DOp : public ::testing::TestWithParam<DType> {};

TEST_P(DepthwiseConv2DOp, MatchesTensorFlow) {
  const Tensor x = MakeTensorOf(GetParam(), DepthwisePattern(40, 7, 3), {1, 4, 5, 2});
  const Tensor f = MakeTensorOf(GetParam(), DepthwisePattern(36, 5, 2), {3, 3, 2, 2});
  const Tensor valid = Eval("depthwise_conv2d", {x, f});
  EXPECT_EQ(valid.dtype(), GetParam());
  ExpectTensorNear(valid, {13, 0, 8, -3, 8, 14, 13, -14, 3, -14, -10, 10, 2, 0, -16, 12, -10, 0, 3, 15, 13, 0, 8, -3},
                   {1, 2, 3, 4});
  ExpectTensorNear(Eval("depthwise_conv2d", {x, f}, DepthwiseWindow({1, 2, 2, 1}, "SAME")),
                   {-8, 6, 7, 10, 8, 14, 13, -14, -10, -10, 4, 3, 3, -11, 5, 3, 7, 9, -6, -15, -10, 2, 1, 7},
                   {1, 2, 3, 4});
  ExpectTensorNear(Eval("depthwise_conv2d", {x, f}, DepthwiseWindow({1, 1}, "SAME", {2, 2})),
                   {4,  5,  6,  -1, -7, -5, 8,  -8, 9,  -10, -5, 10, -5, 7,  -8, -9, -1, -5, 6,  -4,
                    5,  4,  -5, 6,  1,  1,  -3, 6,  2,  7,   8,  -3, 1,  -4, 6,  -5, 5,  -9, -1, 7,
                    -8, 8,  -5, -7, -1, 6,  5,  4,  12, 3,   -5, 5,  6,  -7, 4,  8,  -3, 3,  1,  -4,
                    -8, -9, 3,  -1, 6,  -4, -1, 3,  -8, 7,   -5, -6, -4, 1,  3,  -3, 8,  4,  -7, 6},
                   {1, 4, 5, 4});
}

// The gradients of sum(w * depthwise_conv2d(x, f, strides 2, SAME)).
TEST_P(DepthwiseConv2DOp, BackpropsMatchTensorFlow) {
  const Tensor x = MakeTensorOf(GetParam(), DepthwisePattern(40, 7, 3), {1, 4, 5, 2});
  const Tensor f = MakeTensorOf(GetParam(), DepthwisePattern(36, 5, 2), {3, 3, 2, 2});
  const Tensor w = MakeTensorOf(GetParam(), DepthwisePattern(24, 3, 1), {1, 2, 3, 4});
  const AttrMap a = DepthwiseWindow({1, 2, 2, 1}, "SAME");
  ExpectTensorNear(Eval("depthwise_conv2d_backprop_input", {x, f, w}, a),
                   {-2, -1, -2, -1, -2, 1, 1, 3,  4,  0,  1, -1, 3, -3, 0, -1, -2, -2, -1, 2,
                    -3, -2, -4, 4,  0,  3, 6, 1,  3,  -1, 1, -1, 3, -3, 0, -1, -2, -2, -1, 2},
                   {1, 4, 5, 2});
  ExpectTensorNear(Eval("depthwise_conv2d_backprop_filter", {x, f, w}, a),
                   {5, -8, 1, 0, -5, 6, -8, 2, 3, 5, -1, 1, -3, 6, -5, -1, 2, -1,
                    6, 2, -3, -3, 6, -5, 2, -4, 1, 3, -6, 3, -4, 1, 2, 2, -4, 1},
                   {3, 3, 2, 2});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, DepthwiseConv2DOp, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(DepthwiseConv2DOps, ShapesAndEmpty) {
  using test::InferShapesString;
  EXPECT_EQ(InferShapesString("depthwise_conv2d", {PartialShape({-1, 8, 8, 3}), PartialShape({3, 3, 3, 4})},
                              {DType::kF32, DType::kF32}, DepthwiseWindow({2, 2}, "SAME")),
            "[?, 4, 4, 12]");
  EXPECT_EQ(InferShapesString("depthwise_conv2d", {PartialShape(), PartialShape({3, 3, -1, 2})},
                              {DType::kF32, DType::kF32}, DepthwiseWindow({1, 1}, "VALID")),
            "[?, ?, ?, ?]");
  ExpectTensorNear(Eval("depthwise_conv2d", {MakeTensor<float>({}, {0, 3, 3, 2}), MakeTensor<float>({1, 1}, {1, 1, 2, 1})}),
                   {}, {0, 3, 3, 2});
}

TEST(DepthwiseConv2DOps, Errors) {
  const Tensor x = MakeTensor<float>(std::vector<float>(18, 1), {1, 3, 3, 2});
  ExpectError(test::RunOp1("depthwise_conv2d", {x, MakeTensor<float>(std::vector<float>(9, 1), {3, 3, 1, 1})}),
              Code::kInvalidArgument,
              "depthwise_conv2d: input has 2 channels but the filter expects 1: input [1, 3, 3, 2], filter [3, 3, 1, 1]");
  ExpectError(test::RunOp1("depthwise_conv2d", {x, MakeTensor<float>(std::vector<float>(32, 1), {4, 4, 2, 1})}),
              Code::kInvalidArgument, "depthwise_conv2d");
  ExpectError(test::RunOp1("depthwise_conv2d", {MakeTensor<float>({1, 2}, {2}), x}), Code::kInvalidArgument,
              "depthwise_conv2d: input must be 4-D");
  ExpectError(test::RunKernel("depthwise_conv2d", {x, MakeTensor<float>(std::vector<float>(9, 1), {3, 3, 1, 1})}),
              Code::kInvalidArgument, "input has 2 channels but the filter expects 1");
  ExpectError(test::RunKernel("depthwise_conv2d_backprop_input",
                              {x, MakeTensor<float>({1, 1}, {1, 1, 2, 1}), MakeTensor<float>({1}, {1, 1, 1, 1})}),
              Code::kInvalidArgument,
              "depthwise_conv2d_backprop_input: out_backprop has shape [1, 1, 1, 1] but the forward output is "
              "[1, 3, 3, 2]");
  EXPECT_FALSE(test::RunOp1("depthwise_conv2d", {MakeTensor<int32_t>({1}, {1, 1, 1, 1}),
                                                 MakeTensor<int32_t>({1}, {1, 1, 1, 1})})
                   .ok());
}

TEST(DepthwiseConv2DOps, Gradients) {
  const Tensor x = test::RandomF64({2, 5, 4, 3}, -1, 1, 1);
  const Tensor f = test::RandomF64({3, 2, 3, 2}, -1, 1, 2);
  for (const AttrMap& a : {DepthwiseWindow({1, 1}, "VALID"), DepthwiseWindow({2, 2}, "SAME"), DepthwiseWindow({1, 2}, "SAME", {2, 1})}) {
    EXPECT_GRADIENT_OK("depthwise_conv2d", {x, f}, a);
  }
  const AttrMap a = DepthwiseWindow({2, 1}, "SAME");
  const Tensor dy = test::RandomF64({2, 3, 4, 6}, -1, 1, 3);
  test::GradCheckOptions wrt_filter_and_dy;
  wrt_filter_and_dy.wrt = {1, 2};
  EXPECT_GRADIENT_OK("depthwise_conv2d_backprop_input", {x, f, dy}, a, wrt_filter_and_dy);
  test::GradCheckOptions wrt_input_and_dy;
  wrt_input_and_dy.wrt = {0, 2};
  EXPECT_GRADIENT_OK("depthwise_conv2d_backprop_filter", {x, f, dy}, a, wrt_input_and_dy);
}

}  // namespace
}  // namespace tfg
