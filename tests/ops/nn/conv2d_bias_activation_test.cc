// conv2d_bias_activation (ops/nn/conv2d_bias_activation.cc) through each CPU
// convolution backend: a small case worked by hand, then varied shapes
// (strides, dilations, SAME and VALID, batches that do not split evenly
// over oneDNN's slices) against conv2d -> bias_add [-> relu] run op by op,
// within f32 reassociation; and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ops/nn/conv_backend.h"
#include "tests/ops/nn/conv_backend_fixture.h"
#include "tests/ops/nn/conv_test_shapes.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::conv2d_bias_activation_test {
namespace {

using Shape = test::ConvShape;
const auto& kShapes = test::kConvShapes;

std::vector<double> Values(int64_t count, uint64_t seed) { return test::LcgValues(count, seed); }

AttrMap Attrs(const Shape& s, const char* activation) {
  return {{"strides", std::vector<int64_t>{s.sh, s.sw}},
          {"padding", std::string(s.same ? "SAME" : "VALID")},
          {"dilations", std::vector<int64_t>{s.dh, s.dw}},
          {"activation", std::string(activation)}};
}

class Conv2DBiasActivation : public test::EachConvBackend {};

// x [1, 3, 3, 1] = 1..9; filter [2, 2, 1, 2]: channel 0 sums the window
// (12 16 24 28), channel 1 is top-left minus bottom-right (-4 everywhere);
// bias [-20, 1] gives -8 -4 4 8 and -3: ReLU keeps 4 and 8.
TEST_P(Conv2DBiasActivation, SmallCaseByHand) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    const Tensor x = test::MakeTensorOf(dtype, {1, 2, 3, 4, 5, 6, 7, 8, 9}, TensorShape({1, 3, 3, 1}));
    const Tensor f = test::MakeTensorOf(dtype, {1, 1, 1, 0, 1, 0, 1, -1}, TensorShape({2, 2, 1, 2}));
    const Tensor b = test::MakeTensorOf(dtype, {-20, 1}, TensorShape({2}));
    const TensorShape ys({1, 2, 2, 2});
    test::ExpectTensorNear(test::Eval("conv2d_bias_activation", {x, f, b}, {{"activation", std::string("relu")}}),
                           {0, 0, 0, 0, 4, 0, 8, 0}, ys, 0);
    test::ExpectTensorNear(test::Eval("conv2d_bias_activation", {x, f, b}, {}), {-8, -3, -4, -3, 4, -3, 8, -3}, ys,
                           0);
  }
}

TEST_P(Conv2DBiasActivation, MatchesConvThenBiasAddThenRelu) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    const TensorShape xs({s.n, s.h, s.w, s.c}), fs({s.kh, s.kw, s.c, s.o});
    const Tensor x = test::MakeTensorOf(DType::kF32, Values(xs.num_elements(), 1), xs);
    const Tensor f = test::MakeTensorOf(DType::kF32, Values(fs.num_elements(), 2), fs);
    const Tensor b = test::MakeTensorOf(DType::kF32, Values(s.o, 3), TensorShape({s.o}));
    AttrMap conv_attrs = Attrs(s, "none");
    conv_attrs.erase("activation");
    const Tensor biased = test::Eval("bias_add", {test::Eval("conv2d", {x, f}, conv_attrs), b});
    const Tensor activated = test::Eval("relu", {biased});
    // Sums of kh*kw*c products of values below 1, added in another order.
    const double tol = 1e-6 * static_cast<double>(s.kh * s.kw * s.c) + 1e-5;
    test::ExpectTensorNear(test::Eval("conv2d_bias_activation", {x, f, b}, Attrs(s, "relu")),
                           test::ToDoubles(activated), activated.shape(), tol);
    test::ExpectTensorNear(test::Eval("conv2d_bias_activation", {x, f, b}, Attrs(s, "none")),
                           test::ToDoubles(biased), biased.shape(), tol);
  }
}

// relu keeps a NaN (x < 0 is false for it); so does the fused kernel, though
// oneDNN's own ReLU would make it 0. Only windows that reach the NaN are NaN.
TEST_P(Conv2DBiasActivation, ANaNInTheInputStaysNaNAfterRelu) {
  std::vector<double> xv(1 * 4 * 4 * 1, -1.0);
  xv[0] = std::nan("");
  const Tensor x = test::MakeTensorOf(DType::kF32, xv, TensorShape({1, 4, 4, 1}));
  const Tensor f = test::MakeTensorOf(DType::kF32, {1, 1, 1, 1}, TensorShape({2, 2, 1, 1}));
  const Tensor b = test::MakeTensorOf(DType::kF32, {5}, TensorShape({1}));
  const double nan = std::nan("");
  // VALID 2x2 windows of -1s sum to -4; +5 gives 1. Only window (0, 0) has the NaN.
  test::ExpectTensorNear(test::Eval("conv2d_bias_activation", {x, f, b}, {{"activation", std::string("relu")}}),
                         {nan, 1, 1, 1, 1, 1, 1, 1, 1}, TensorShape({1, 3, 3, 1}), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, Conv2DBiasActivation,
                         ::testing::Values(nn::ConvBackend::kReference, nn::ConvBackend::kOneDnn),
                         [](const auto& info) {
                           return std::string(info.param == nn::ConvBackend::kOneDnn ? "OneDnn" : "Reference");
                         });

TEST(Conv2DBiasActivationErrors, ShapesActivationAndBias) {
  const Tensor x = test::MakeTensorOf(DType::kF32, std::vector<double>(2 * 4 * 4 * 3, 1), TensorShape({2, 4, 4, 3}));
  const Tensor f = test::MakeTensorOf(DType::kF32, std::vector<double>(3 * 3 * 3 * 5, 1), TensorShape({3, 3, 3, 5}));
  const Tensor b4 = test::MakeTensorOf(DType::kF32, {1, 2, 3, 4}, TensorShape({4}));
  EXPECT_EQ(test::InferShapesString("conv2d_bias_activation", {PartialShape({-1, 8, 8, 3}), PartialShape({3, 3, 3, 5}),
                                                               PartialShape({-1})},
                                    {DType::kF32, DType::kF32, DType::kF32}, {{"padding", std::string("SAME")}}),
            "[?, 8, 8, 5]");
  test::ExpectError(test::RunOp("conv2d_bias_activation", {x, f, b4}), Code::kInvalidArgument,
                    "bias has 4 elements but the convolution has 5 output channels");
  // Unknown at build time, the kernel's own check words it as bias_add does.
  test::ExpectError(test::RunKernel("conv2d_bias_activation", {x, f, b4}), Code::kInvalidArgument,
                    "bias_add: bias of shape [4] does not match the last dimension of value [2, 2, 2, 5]");
  const Tensor f4 = test::MakeTensorOf(DType::kF32, std::vector<double>(3 * 3 * 4 * 5, 1), TensorShape({3, 3, 4, 5}));
  const Tensor b5 = test::MakeTensorOf(DType::kF32, {1, 2, 3, 4, 5}, TensorShape({5}));
  test::ExpectError(test::RunKernel("conv2d_bias_activation", {x, f4, b5}), Code::kInvalidArgument,
                    "conv2d: input has 3 channels but the filter expects 4");
  test::ExpectError(test::RunOp("conv2d_bias_activation", {x, f, b5}, {{"activation", std::string("tanh")}}),
                    Code::kInvalidArgument, "activation must be \"none\" or \"relu\", got \"tanh\"");
}

}  // namespace
}  // namespace tfg::conv2d_bias_activation_test
