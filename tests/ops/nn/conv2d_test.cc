// conv2d and its backprops. Expected values come from a direct NumPy
// implementation (loops over output pixels and taps, TF's SAME padding
// rule), on inputs from Gen (see nn_test_util.h):
//   x = gen(x_shape, 7, 3, 11, 4.0), filter = gen(f_shape, 5, 1, 9, 8.0),
//   dy = gen(y_shape, 3, 2, 7, 2.0); dx, dfilter = the adjoints at dy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/nn/conv2d.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::conv2d_test {
namespace {

using test::ExpectTensorNear;
using test::Gen;
using test::Tol;

struct ConvCase {
  const char* name;
  std::vector<int64_t> x, f, strides;
  const char* padding;
  std::vector<int64_t> dilations, y;
  std::vector<double> y_vals, dx_vals, df_vals;
};

const ConvCase kCases[] = {
    {"valid",
     {1, 4, 4, 2},
     {3, 3, 2, 2},
     {1, 1},
     "VALID",
     {1, 1},
     {1, 2, 2, 2},
     {-2.0625, 1.3125, -1.71875, 0.96875, -0.6875, -0.75, 1.03125, 0.28125},
     {0.4375,  0.5,    1.0625, -0.0625, -0.0625, -0.625,  -0.3125, -0.375, 0.25,   0.125,   -0.5625,
      -0.625,  0.4375, 0.9375, 0.8125,  0.875,   -1.0625, -1.1875, 0.75,   0.6875, -1.0625, -0.5625,
      -1.0625, 0.125,  0.0,    -0.1875, -0.125,  -0.1875, -0.25,   1.375,  0.75,   -0.8125},
     {1.125, -0.625, 1.25,  1.125,  0.0,    0.125, 1.5,   -0.875, -2.5, 0.875,  0.375, -0.125,
      0.75,  -0.375, 2.25,  -1.375, -4.5,   1.75,  1.125, -0.625, 1.25, 1.125,  0.0,   0.125,
      0.375, -0.125, 1.875, -1.125, -2.125, 0.625, 0.75,  -0.375, 2.25, -1.375, -4.5,  1.75}},
    {"same_s2",
     {2, 5, 5, 1},
     {3, 3, 1, 2},
     {2, 2},
     "SAME",
     {1, 1},
     {2, 3, 3, 2},
     {0.75,     -0.25,   -0.03125, -0.4375,  -0.59375, 0.03125, 0.5625, -0.5625,  -0.4375,
      -0.28125, 0.46875, -0.46875, -0.28125, 0.71875,  0.40625, -0.375, -0.1875,  -0.625,
      0.65625,  -0.125,  -0.21875, -0.15625, 0.53125,  0.28125, 0.5625, -0.65625, -0.4375,
      -0.28125, -0.3125, 0.65625,  0.0625,   -0.375,   0.5,     -0.375, -0.0625,  -0.5625},
     {-0.4375, -0.625, -0.3125, -0.375, -0.1875, -0.8125, -1.125,  -1.125,  -1.1875, -1.4375, 0.375,  1.0,     0.5,
      1.25,    0.625,  1.3125,  0.875,  1.0,     0.8125,  0.6875,  -0.5625, -0.875,  -0.4375, -0.625, -0.3125, -0.1875,
      -0.125,  0.375,  1.0,     0.5,    -1.4375, 0.9375,  1.3125,  0.875,   1.0,     0.625,   -0.25,  -0.5625, -0.875,
      -0.4375, 0.6875, 0.3125,  0.375,  -0.625,  -0.8125, -0.3125, -0.375,  -0.1875, -0.125,  0.375},
     {-0.5, -0.875, 0.5, 4.5, -3.25, 2.5, -0.375, 0.75, 2.5, -3.0, -6.125, 4.625, -0.875, -0.375, 4.5, -3.75, 2.5,
      -0.5}},
    {"same_odd",
     {1, 4, 4, 1},
     {2, 2, 1, 1},
     {1, 1},
     "SAME",
     {1, 1},
     {1, 4, 4, 1},
     {0.25, -0.78125, 0.25, 0.09375, -0.78125, 0.25, 0.25, -0.15625, -0.4375, 0.25, 0.25, -0.0625, -0.40625, -0.28125,
      0.53125, -0.375},
     {0.1875, -0.5, 0.625, -0.4375, 0.6875, -0.8125, 0.0625, 0.0625, 0.0, 0.0625, -0.8125, 1.375, -0.25, 0.0625, 0.0625,
      0.0625},
     {1.25, -2.125, 1.375, 0.875}},
    {"dilated",
     {1, 5, 5, 1},
     {2, 2, 1, 1},
     {1, 1},
     "VALID",
     {2, 2},
     {1, 3, 3, 1},
     {0.59375, -0.4375, -0.4375, -0.4375, 0.59375, -0.4375, 0.25, 0.59375, -0.4375},
     {0.1875, -0.375, 0.25,   0.25,  -0.25,  -0.1875, 0.5625, 0.125,  -0.375, 0.0,    -0.4375, -0.0625, 0.0625,
      0.25,   -0.125, -0.125, 0.375, 0.1875, -0.5625, 0.0,    -0.375, 0.125,  0.3125, -0.1875, 0.375},
     {5.0, -0.125, -4.125, -2.375}},
    {"pointwise",
     {2, 2, 2, 3},
     {1, 1, 3, 2},
     {1, 1},
     "VALID",
     {1, 1},
     {2, 2, 2, 2},
     {-0.15625, 0.46875, 0.03125, 0.1875, 0.21875, -0.09375, 0.40625, -0.375, -0.4375, 0.03125, -0.25, -0.25, -0.0625,
      -0.53125, -0.21875, 0.5625},
     {0.4375, 0.5,    0.5625, 0.5,     0.4375,  0.375,   0.5625, 0.375,  0.1875, -0.6875, -0.5625, -0.4375,
      -0.625, -0.625, -0.625, -0.5625, -0.6875, -0.8125, 0.375,  0.5625, 0.75,   0.4375,  0.5,     0.5625},
     {2.125, -1.375, -1.5, 0.375, -2.375, 2.125}},
    {"same_s2_dil",
     {1, 6, 7, 2},
     {2, 3, 2, 3},
     {2, 1},
     "SAME",
     {2, 1},
     {1, 3, 7, 3},
     {-0.75,    2.25,    -0.9375,  2.625,    -1.0625, 2.5625,   -0.46875, -1.15625, -0.4375,  -1.5,     0.8125,
      -1.375,   0.5625,  1.0625,   0.4375,   1.59375, -1.09375, 1.5625,   -0.75,    -0.6875,  -0.625,   -0.75,
      0.375,    -0.75,   0.5625,   1.0625,   0.4375,  1.59375,  -1.09375, 1.5625,   -1.5,     -1.1875,  -1.4375,
      -1.5,     1.8125,  -1.34375, 1.59375,  0.0,     1.5,      0.65625,  -0.90625, 0.625,    -0.375,   -0.96875,
      -0.15625, -0.75,   1.40625,  -0.65625, 1.3125,  -0.53125, 1.28125,  -0.75,    -0.40625, -0.90625, -0.75,
      0.40625,  -0.6875, 0.28125,  0.53125,  0.21875, 0.9375,   -0.59375, 0.96875},
     {-1.1875, 1.0625, -1.0, -0.0625, 1.625, -1.375, 1.1875, 0.8125, -2.75, 0.8125, 0.3125, -1.375, 0.9375, 0.75,
      0.0,     0.0,    0.0,  0.0,     0.0,   0.0,    0.0,    0.0,    0.0,   0.0,    0.0,    0.0,    0.0,    0.0,
      -2.375,  2.125,  -2.0, -0.125,  3.25,  -2.75,  2.375,  1.625,  -5.5,  1.625,  0.625,  -2.75,  1.875,  1.5,
      0.0,     0.0,    0.0,  0.0,     0.0,   0.0,    0.0,    0.0,    0.0,   0.0,    0.0,    0.0,    0.0,    0.0,
      -2.375,  2.125,  -2.0, -0.125,  3.25,  -2.75,  2.375,  1.625,  -5.5,  1.625,  0.625,  -2.75,  1.875,  1.5,
      0.0,     0.0,    0.0,  0.0,     0.0,   0.0,    0.0,    0.0,    0.0,   0.0,    0.0,    0.0,    0.0,    0.0},
     {-5.0,   5.25,   -4.625, 1.75,   -2.75, 0.625,  -2.375, -2.75, 4.75, -3.75,  5.5,    -6.25,
      7.125,  -6.875, 6.25,   -0.125, 1.375, 1.125,  -3.125, 5.375, -4.5, 2.75,   -3.625, 3.125,
      -3.875, 0.0,    -0.5,   -1.125, 4.125, -4.625, 6.75,   -5.5,  6.75, -3.125, 4.125,  -2.625}},
};

AttrMap Attrs(const ConvCase& c) {
  return {{"strides", c.strides}, {"padding", std::string(c.padding)}, {"dilations", c.dilations}};
}

class Conv2D : public ::testing::TestWithParam<DType> {};

TEST_P(Conv2D, ForwardAndBackpropsMatchNumPy) {
  const DType dt = GetParam();
  for (const ConvCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Tensor x = Gen(dt, TensorShape(c.x), 7, 3, 11, 4.0);
    Tensor f = Gen(dt, TensorShape(c.f), 5, 1, 9, 8.0);
    Tensor dy = Gen(dt, TensorShape(c.y), 3, 2, 7, 2.0);
    Tensor y = test::Eval("conv2d", {x, f}, Attrs(c));
    EXPECT_EQ(y.dtype(), dt);
    ExpectTensorNear(y, c.y_vals, TensorShape(c.y), Tol(dt));
    ExpectTensorNear(test::Eval("conv2d_backprop_input", {x, f, dy}, Attrs(c)), c.dx_vals, TensorShape(c.x), Tol(dt));
    ExpectTensorNear(test::Eval("conv2d_backprop_filter", {x, f, dy}, Attrs(c)), c.df_vals, TensorShape(c.f), Tol(dt));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Conv2D, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(Conv2D, FourValueStridesAndLowercasePadding) {
  const ConvCase& c = kCases[1];  // same_s2
  Tensor x = Gen(DType::kF32, TensorShape(c.x), 7, 3, 11, 4.0);
  Tensor f = Gen(DType::kF32, TensorShape(c.f), 5, 1, 9, 8.0);
  AttrMap attrs = {{"strides", std::vector<int64_t>{1, 2, 2, 1}},
                   {"padding", std::string("same")},
                   {"dilations", std::vector<int64_t>{1, 1, 1, 1}}};
  ExpectTensorNear(test::Eval("conv2d", {x, f}, attrs), c.y_vals, TensorShape(c.y), 1e-6);
}

// A direct convolution, independent of the im2col code under test.
std::vector<double> DirectConv(const Tensor& x, const Tensor& f, int64_t stride, int64_t pad, int64_t oh, int64_t ow) {
  const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3), kh = f.dim(0), kw = f.dim(1), o = f.dim(3);
  const double* px = x.data<double>();
  const double* pf = f.data<double>();
  std::vector<double> y(n * oh * ow * o, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            const int64_t ih = i * stride - pad + p, iw = j * stride - pad + q;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
            for (int64_t ci = 0; ci < c; ++ci)
              for (int64_t co = 0; co < o; ++co)
                y[((b * oh + i) * ow + j) * o + co] +=
                    px[((b * h + ih) * w + iw) * c + ci] * pf[((p * kw + q) * c + ci) * o + co];
          }
  return y;
}

TEST(Conv2D, BatchesLargerThanOneChunk) {
  // 200 x 200 x 8 images with 5x5 taps make 13 MB of patches per image in
  // f64, so every image is its own chunk (the kernel caps chunks at 16 MB).
  Tensor x = test::RandomF64({3, 200, 200, 8}, -1, 1, 3);
  Tensor f = test::RandomF64({5, 5, 8, 4}, -1, 1, 4);
  AttrMap attrs = {{"strides", std::vector<int64_t>{2, 2}}, {"padding", std::string("SAME")}};
  Tensor y = test::Eval("conv2d", {x, f}, attrs);
  // SAME, stride 2: out = 100, pad_total = 99 * 2 + 5 - 200 = 3, pad_top = 1.
  ExpectTensorNear(y, DirectConv(x, f, 2, 1, 100, 100), {3, 100, 100, 4}, 1e-12);
}

// d input of a direct convolution: each output gradient scattered back
// through the taps that produced it.
std::vector<double> DirectBackpropInput(const Tensor& x, const Tensor& f, const Tensor& dy, int64_t stride,
                                        int64_t pad) {
  const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3), kh = f.dim(0), kw = f.dim(1), o = f.dim(3);
  const int64_t oh = dy.dim(1), ow = dy.dim(2);
  const double* pf = f.data<double>();
  const double* pd = dy.data<double>();
  std::vector<double> dx(n * h * w * c, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            const int64_t ih = i * stride - pad + p, iw = j * stride - pad + q;
            if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
            for (int64_t ci = 0; ci < c; ++ci)
              for (int64_t co = 0; co < o; ++co)
                dx[((b * h + ih) * w + iw) * c + ci] +=
                    pd[((b * oh + i) * ow + j) * o + co] * pf[((p * kw + q) * c + ci) * o + co];
          }
  return dx;
}

TEST(Conv2D, ForwardAndInputGradientOverSeveralCacheSizedChunks) {
  // 28 x 28 x 72 patches per image are 450 KB in f64: the forward pass and
  // the input gradient (whose chunks are kept near 1 MB) run 2 images per
  // chunk, with a partial last chunk.
  Tensor x = test::RandomF64({5, 30, 30, 8}, -1, 1, 5);
  Tensor f = test::RandomF64({3, 3, 8, 4}, -1, 1, 6);
  Tensor dy = test::RandomF64({5, 28, 28, 4}, -1, 1, 7);
  ExpectTensorNear(test::Eval("conv2d", {x, f}), DirectConv(x, f, 1, 0, 28, 28), {5, 28, 28, 4}, 1e-12);
  ExpectTensorNear(test::Eval("conv2d_backprop_input", {x, f, dy}), DirectBackpropInput(x, f, dy, 1, 0),
                   {5, 30, 30, 8}, 1e-12);
}

TEST(Conv2D, ShapeFunction) {
  const std::vector<DType> f32 = {DType::kF32, DType::kF32};
  AttrMap same = {{"padding", std::string("SAME")}};
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({-1, 28, 28, 1}), PartialShape({5, 5, 1, 32})}, f32, same),
            "[?, 28, 28, 32]");
  AttrMap valid_s2 = {{"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_EQ(
      test::InferShapesString("conv2d", {PartialShape({8, 28, -1, 3}), PartialShape({5, 5, -1, 6})}, f32, valid_s2),
      "[8, 12, ?, 6]");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape::Unknown(), PartialShape({3, 3, 2, 4})}, f32),
            "[?, ?, ?, 4]");
}

TEST(Conv2D, ShapeErrors) {
  const std::vector<DType> f32 = {DType::kF32, DType::kF32};
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 8, 8, 3}), PartialShape({3, 3, 4, 2})}, f32),
            "conv2d: input has 3 channels but the filter expects 4: input [1, 8, 8, 3], filter [3, 3, 4, 2] "
            "[height, width, in_channels, out_channels]");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 4, 8, 3}), PartialShape({5, 3, 3, 2})}, f32),
            "conv2d: the window height 5 is larger than the input height 4 with padding=\"VALID\"");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({8, 8, 3}), PartialShape({3, 3, 3, 2})}, f32),
            "conv2d: input must be 4-D [batch, height, width, channels], got [8, 8, 3]");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 8, 8, 3}), PartialShape({3, 3, 3, 2})}, f32,
                                    {{"padding", std::string("FULL")}}),
            "conv2d: padding must be \"VALID\" or \"SAME\", got \"FULL\"");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 8, 8, 3}), PartialShape({3, 3, 3, 2})}, f32,
                                    {{"strides", std::vector<int64_t>{1, 2, 2}}}),
            "conv2d: strides must have 2 values [height, width] or 4 values [1, height, width, 1], got [1, 2, 2]");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 8, 8, 3}), PartialShape({3, 3, 3, 2})}, f32,
                                    {{"strides", std::vector<int64_t>{2, 2, 2, 1}}}),
            "conv2d: strides [2, 2, 2, 1] must be 1 in the batch and channel dimensions (NHWC); only height and "
            "width windows are supported");
  EXPECT_EQ(test::InferShapesString("conv2d", {PartialShape({1, 8, 8, 3}), PartialShape({3, 3, 3, 2})}, f32,
                                    {{"dilations", std::vector<int64_t>{0, 1}}}),
            "conv2d: dilations must be positive, got [0, 1]");
  // The kernel checks what the shape function could not see.
  test::ExpectError(
      test::RunKernel("conv2d", {test::MakeTensor<float>({}, {1, 2, 2, 3}), test::MakeTensor<float>({}, {1, 1, 2, 1})}),
      Code::kInvalidArgument, "input has 3 channels but the filter expects 2");
  Tensor x = test::MakeTensor<float>({}, {1, 2, 2, 1});
  Tensor f = test::MakeTensor<float>({}, {1, 1, 1, 1});
  test::ExpectError(test::RunKernel("conv2d_backprop_input", {x, f, test::MakeTensor<float>({}, {1, 2, 3, 1})}),
                    Code::kInvalidArgument,
                    "out_backprop has shape [1, 2, 3, 1] but the forward output is [1, 2, 2, 1]");
}

// The checks the CPU and GPU kernels share (ops/nn/conv2d.h).
TEST(PlanConv2D, GeometryAndOutputShape) {
  nn::WindowAttrs same_s2;
  same_s2.strides = {2, 2};
  same_s2.padding = nn::Padding::kSame;
  // TensorFlow: 5 by 2 with stride 2 gives 3, padded by 0 before and 1 after.
  auto run = nn::PlanConv2D("conv2d", {1, 5, 5, 2}, {2, 2, 2, 3}, same_s2);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->out, TensorShape({1, 3, 3, 3}));
  EXPECT_EQ(run->out_channels, 3);
  EXPECT_EQ(std::make_tuple(run->g.kh, run->g.kw, run->g.c), std::make_tuple(2, 2, 2));
  EXPECT_EQ(std::make_tuple(run->g.pad_top, run->g.pad_bottom, run->g.pad_left, run->g.pad_right),
            std::make_tuple(0, 1, 0, 1));
  nn::WindowAttrs dilated;
  dilated.dilations = {2, 2};
  auto valid = nn::PlanConv2D("conv2d", {1, 9, 9, 2}, {3, 3, 2, 2}, dilated);
  ASSERT_TRUE(valid.ok()) << valid.status().ToString();
  EXPECT_EQ(valid->out, TensorShape({1, 5, 5, 2}));
}

TEST(PlanConv2D, Errors) {
  const nn::WindowAttrs a;
  EXPECT_EQ(nn::PlanConv2D("conv2d", {1, 5, 5, 3}, {2, 2, 2, 3}, a).status().message(),
            "conv2d: input has 3 channels but the filter expects 2: input [1, 5, 5, 3], filter [2, 2, 2, 3] "
            "[height, width, in_channels, out_channels]");
  EXPECT_EQ(nn::PlanConv2D("conv2d", {1, 5, 5, 3}, {2, 2}, a).status().message(),
            "conv2d: filter must be 4-D [height, width, in_channels, out_channels], got [2, 2]");
  EXPECT_EQ(nn::PlanConv2D("conv2d", {1, 4, 8, 3}, {5, 3, 3, 2}, a).status().message(),
            "conv2d: the window height 5 is larger than the input height 4 with padding=\"VALID\"");
  auto run = nn::PlanConv2D("conv2d_backprop_input", {1, 2, 2, 1}, {1, 1, 1, 1}, a);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(nn::CheckConv2DOutBackprop("conv2d_backprop_input", *run, {1, 2, 2, 1}).ok());
  EXPECT_EQ(nn::CheckConv2DOutBackprop("conv2d_backprop_input", *run, {1, 2, 3, 1}).message(),
            "conv2d_backprop_input: out_backprop has shape [1, 2, 3, 1] but the forward output is [1, 2, 2, 1]");
}

TEST(Conv2D, EmptyBatch) {
  Tensor x = test::MakeTensor<float>({}, {0, 5, 5, 2});
  Tensor f = Gen(DType::kF32, {3, 3, 2, 4}, 5, 1, 9, 8.0);
  ExpectTensorNear(test::Eval("conv2d", {x, f}), {}, {0, 3, 3, 4});
  ExpectTensorNear(test::Eval("conv2d_backprop_filter", {x, f, test::MakeTensor<float>({}, {0, 3, 3, 4})}),
                   std::vector<double>(72, 0.0), {3, 3, 2, 4});
}

TEST(Conv2DGradient, FiniteDifferences) {
  Tensor x = test::RandomF64({2, 5, 6, 2}, -1, 1, 11);
  Tensor f = test::RandomF64({3, 2, 2, 3}, -1, 1, 12);
  EXPECT_GRADIENT_OK("conv2d", {x, f}, {{"strides", std::vector<int64_t>{2, 1}}, {"padding", std::string("SAME")}});
  EXPECT_GRADIENT_OK("conv2d", {x, f}, {{"dilations", std::vector<int64_t>{2, 2}}});
}

TEST(Conv2DGradient, BackpropsAreDifferentiable) {
  Tensor x = test::RandomF64({1, 4, 5, 2}, -1, 1, 21);
  Tensor f = test::RandomF64({2, 3, 2, 2}, -1, 1, 22);
  AttrMap attrs = {{"strides", std::vector<int64_t>{2, 2}}, {"padding", std::string("SAME")}};
  Tensor dy = test::RandomF64({1, 2, 3, 2}, -1, 1, 23);
  test::GradCheckOptions wrt_12;
  wrt_12.wrt = {1, 2};
  EXPECT_GRADIENT_OK("conv2d_backprop_input", {x, f, dy}, attrs, wrt_12);
  test::GradCheckOptions wrt_02;
  wrt_02.wrt = {0, 2};
  EXPECT_GRADIENT_OK("conv2d_backprop_filter", {x, f, dy}, attrs, wrt_02);
}

}  // namespace
}  // namespace tfg::conv2d_test
