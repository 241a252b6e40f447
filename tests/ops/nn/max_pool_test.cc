// max_pool and its gradients. Expected values from a NumPy loop over
// windows (np.argmax: the first maximum), on x = gen(x_shape, 7, 3, 11, 4.0)
// — whose many repeated values exercise ties — and dy = gen(y_shape, 3, 2,
// 7, 2.0) (see nn_test_util.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/nn/pool.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::Gen;
using test::Tol;

struct PoolCase {
  const char* name;
  std::vector<int64_t> x, ksize, strides;
  const char* padding;
  std::vector<int64_t> y;
  std::vector<double> y_vals, dx_vals;
};

AttrMap Attrs(const PoolCase& c) {
  return {{"ksize", c.ksize}, {"strides", c.strides}, {"padding", std::string(c.padding)}};
}

const PoolCase kCases[] = {
    {"valid_2x2_s2",
     {2, 4, 4, 2},
     {2, 2},
     {2, 2},
     "VALID",
     {2, 2, 2, 2},
     {0.5, 1.25, 1.25, 1.0, 1.0, 0.0, -0.25, 1.25, 1.25, 0.5, 0.25, 1.25, 1.25, 1.0, 0.75, -0.25},
     {0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0, -0.5, 0.0,  -1.0, 0.0,  0.0,  0.5,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5, 0.0, 0.0, -1.5, 0.0,  0.0,  0.0,  1.5,  0.0,
      0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.0,  -1.0, 0.0,  -1.5, 0.5,  0.0,
      0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.0,  1.5,  0.0,  0.0,  -0.5, 1.0}},
    {"same_3x3_s2",
     {1, 5, 5, 2},
     {3, 3},
     {2, 2},
     "SAME",
     {1, 3, 3, 2},
     {1.25, 1.25, 1.25, 1.0, 0.75, 0.75, 1.25, 1.25, 1.25, 1.25, 1.0, 1.0, 0.75, 0.5, 1.25, 1.25, 1.0, 1.0},
     {0.0,  1.0,  0.0, 0.0,  0.0, 0.0, 0.0,  0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,  0.5, 0.0,
      0.0,  -1.5, 0.0, 0.0,  0.0, 0.0, -1.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0,
      -0.5, 0.0,  0.0, -1.0, 0.0, 0.0, 0.0,  0.0, 0.0, 1.5, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0}},
    {"same_2x2_s1",
     {1, 3, 4, 1},
     {2, 2},
     {1, 1},
     "SAME",
     {1, 3, 4, 1},
     {1.25, 1.25, 0.75, 0.75, 1.0, 0.5, 0.75, 0.75, -0.25, 0.5, 0.5, -0.5},
     {0.0, 0.5, 0.0, 0.0, -1.5, 0.0, 0.0, 0.5, 1.0, 0.0, -0.5, -1.5}},
    {"valid_3x2_s1x2",
     {1, 5, 6, 3},
     {3, 2},
     {1, 2},
     "VALID",
     {1, 3, 3, 3},
     {0.75, 1.25, 1.25, 1.25, 0.75, 1.0, 1.25, 1.25, 0.5, 0.75, 1.0, 1.25, 1.25, 0.5,
      1.0,  1.0,  1.25, 0.5,  0.5,  1.0, 1.25, 1.25, 0.5, 0.75, 1.0, 1.25, 1.25},
     {0.0,  1.0, 0.0, 0.0, 0.0, 0.0,  0.0, -1.5, 0.0,  0.0, 0.0, 0.0, 1.5, 0.0,  0.0, 0.0, 0.0,  0.0,
      -1.5, 0.0, 0.0, 0.0, 0.0, -2.5, 0.0, 0.0,  -0.5, 0.0, 0.0, 0.0, 0.0, 0.0,  1.5, 0.0, -1.5, 0.0,
      0.0,  0.5, 0.0, 0.0, 0.0, 0.0,  0.0, 2.5,  0.0,  0.0, 0.0, 0.0, 1.5, 0.0,  0.0, 0.0, 0.0,  0.0,
      -1.5, 0.0, 1.5, 0.0, 0.0, 0.0,  0.0, 0.0,  -1.0, 0.0, 0.0, 0.0, 0.0, -1.5, 0.0, 0.0, 0.0,  0.0,
      0.0,  0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0,  0.0,  0.0, 0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.0,  0.0}},
};

class MaxPool : public ::testing::TestWithParam<DType> {};

TEST_P(MaxPool, ForwardAndGradientMatchNumPy) {
  const DType dt = GetParam();
  for (const PoolCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Tensor x = Gen(dt, TensorShape(c.x), 7, 3, 11, 4.0);
    Tensor dy = Gen(dt, TensorShape(c.y), 3, 2, 7, 2.0);
    ExpectTensorNear(test::Eval("max_pool", {x}, Attrs(c)), c.y_vals, TensorShape(c.y), Tol(dt));
    ExpectTensorNear(test::Eval("max_pool_grad", {x, dy}, Attrs(c)), c.dx_vals, TensorShape(c.x), Tol(dt));
    // max_pool_grad_grad reads its second operand at each window's argmax:
    // reading x itself there gives the maxima.
    ExpectTensorNear(test::Eval("max_pool_grad_grad", {x, x}, Attrs(c)), c.y_vals, TensorShape(c.y), Tol(dt));
    // max_pool_relu_grad is relu_grad(max_pool_grad(x, dy), x): the
    // gradient kept where x > 0.
    const std::vector<double> xs = test::ToDoubles(x);
    std::vector<double> relu_dx = c.dx_vals;
    for (size_t i = 0; i < relu_dx.size(); ++i) relu_dx[i] = xs[i] > 0 ? relu_dx[i] : 0.0;
    // Its second output sums the first over everything but the channels.
    const int64_t channels = c.x.back();
    std::vector<double> sums(static_cast<size_t>(channels), 0.0);
    for (size_t i = 0; i < relu_dx.size(); ++i) sums[i % sums.size()] += relu_dx[i];
    auto fused = test::RunOp("max_pool_relu_grad", {x, dy}, Attrs(c));
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    ExpectTensorNear((*fused)[0], relu_dx, TensorShape(c.x), Tol(dt));
    ExpectTensorNear((*fused)[1], sums, TensorShape({channels}), 4 * Tol(dt));
    // The pair the fusion makes when the forward pool is in the plan: the
    // pool keeps its argmax bytes, the gradient routes by them.
    auto kept = test::RunOp("max_pool_with_taps", {x}, Attrs(c));
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    ExpectTensorNear((*kept)[0], c.y_vals, TensorShape(c.y), Tol(dt));
    auto routed = test::RunOp("max_pool_relu_grad_from_taps", {x, dy, (*kept)[1]}, Attrs(c));
    ASSERT_TRUE(routed.ok()) << routed.status().ToString();
    ExpectTensorNear((*routed)[0], relu_dx, TensorShape(c.x), Tol(dt));
    ExpectTensorNear((*routed)[1], sums, TensorShape({channels}), 4 * Tol(dt));
  }
}

// The taps are the pair's own business, but a script can call the ops: taps
// of another pooling are refused, and any bytes at all route only inside
// their windows.
TEST(MaxPoolTaps, ForeignTapsAreRefusedOrStayInTheirWindows) {
  const AttrMap attrs = {{"ksize", std::vector<int64_t>{2, 2}},
                         {"strides", std::vector<int64_t>{2, 2}},
                         {"padding", std::string("VALID")}};
  const Tensor x = Gen(DType::kF32, TensorShape({1, 4, 4, 3}), 7, 3, 11, 4.0);
  const Tensor dy = Gen(DType::kF32, TensorShape({1, 2, 2, 3}), 3, 2, 7, 2.0);
  auto short_taps = test::RunOp("max_pool_relu_grad_from_taps", {x, dy, Tensor::FromVector(std::vector<int32_t>{0, 0}, TensorShape({2}))},
                                attrs);
  ASSERT_FALSE(short_taps.ok());
  EXPECT_NE(short_taps.status().message().find("taps has shape [2]"), std::string::npos)
      << short_taps.status().ToString();
  // Every byte 0xff: tap 127, outside every 2x2 window, and not positive.
  const std::vector<int32_t> garbage(3, -1);
  auto routed = test::RunOp("max_pool_relu_grad_from_taps", {x, dy, Tensor::FromVector(garbage, TensorShape({3}))}, attrs);
  ASSERT_TRUE(routed.ok()) << routed.status().ToString();
  ExpectTensorNear((*routed)[0], std::vector<double>(48, 0.0), TensorShape({1, 4, 4, 3}), 0.0);
  const AttrMap huge = {{"ksize", std::vector<int64_t>{12, 12}},
                        {"strides", std::vector<int64_t>{1, 1}},
                        {"padding", std::string("VALID")}};
  auto too_wide = test::RunOp("max_pool_with_taps", {Gen(DType::kF32, TensorShape({1, 12, 12, 1}), 7, 3, 11, 4.0)},
                              huge);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_NE(too_wide.status().message().find("at most 128 pixels"), std::string::npos) << too_wide.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MaxPool, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(MaxPool, TiesGoToTheFirstMaximum) {
  // One 2x2 window of equal values: the gradient lands on the top-left one.
  Tensor x = test::MakeTensor<float>({3, 3, 3, 3}, {1, 2, 2, 1});
  Tensor dy = test::MakeTensor<float>({5}, {1, 1, 1, 1});
  AttrMap attrs = {{"ksize", std::vector<int64_t>{1, 2, 2, 1}}, {"strides", std::vector<int64_t>{1, 2, 2, 1}}};
  ExpectTensorNear(test::Eval("max_pool_grad", {x, dy}, attrs), {5, 0, 0, 0}, {1, 2, 2, 1});
}

TEST(MaxPool, NaNIsTheMaximum) {
  Tensor x = test::MakeTensor<float>({1, NAN, 3, 2}, {1, 2, 2, 1});
  AttrMap attrs = {{"ksize", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
  ExpectTensorNear(test::Eval("max_pool", {x}, attrs), {NAN}, {1, 1, 1, 1});
  ExpectTensorNear(test::Eval("max_pool_grad", {x, test::MakeTensor<float>({7}, {1, 1, 1, 1})}, attrs), {0, 7, 0, 0},
                   {1, 2, 2, 1});
}

// A plain loop over windows, taps in row-major order, TensorFlow's rule
// (the first maximum wins; a NaN is the maximum): the three ops' expected
// values for inputs wide enough to reach the kernels' vector paths.
struct NaivePool {
  std::vector<double> y, dx, gathered;
};

NaivePool NaiveMaxPool(const std::vector<double>& x, int64_t h, int64_t w, int64_t c, int64_t k, int64_t s,
                       bool same, const std::vector<double>& dy, const std::vector<double>& grad) {
  const int64_t oh = same ? (h + s - 1) / s : (h - k) / s + 1, ow = same ? (w + s - 1) / s : (w - k) / s + 1;
  const int64_t pad_top = same ? std::max<int64_t>((oh - 1) * s + k - h, 0) / 2 : 0;
  const int64_t pad_left = same ? std::max<int64_t>((ow - 1) * s + k - w, 0) / 2 : 0;
  NaivePool r{std::vector<double>(oh * ow * c), std::vector<double>(x.size(), 0.0), std::vector<double>(oh * ow * c)};
  for (int64_t i = 0; i < oh; ++i) {
    for (int64_t j = 0; j < ow; ++j) {
      for (int64_t ch = 0; ch < c; ++ch) {
        int64_t best = -1;
        for (int64_t a = i * s - pad_top; a < i * s - pad_top + k; ++a) {
          for (int64_t b = j * s - pad_left; b < j * s - pad_left + k; ++b) {
            if (a < 0 || a >= h || b < 0 || b >= w) continue;
            const int64_t at = (a * w + b) * c + ch;
            if (best < 0) {
              best = at;
            } else if (!std::isnan(x[best]) && (std::isnan(x[at]) || x[at] > x[best])) {
              best = at;
            }
          }
        }
        const int64_t out = (i * ow + j) * c + ch;
        r.y[out] = x[best];
        r.dx[best] += dy[out];
        r.gathered[out] = grad[best];
      }
    }
  }
  return r;
}

// Values with many ties and a NaN every 13th element.
std::vector<double> TiedValues(int64_t n, int64_t a, int64_t b) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i % 13 == 5 ? NAN : static_cast<double>((i * a + b) % 5) - 2.0;
  return v;
}

TEST(MaxPool, VectorPathsMatchANaiveLoop) {
  struct Config {
    int64_t h, w, c, k, s;
    bool same;
  };
  // Disjoint windows that tile the image, disjoint ones that leave pixels
  // out, overlapping ones, SAME edges; channel counts with and without a
  // remainder after whole vectors.
  const Config configs[] = {{4, 6, 8, 2, 2, false}, {5, 7, 7, 2, 2, false}, {5, 7, 9, 2, 3, false},
                            {5, 5, 6, 3, 2, true},  {4, 5, 5, 2, 1, true},  {6, 6, 4, 3, 1, false},
                            {3, 5, 13, 2, 2, true}};
  for (DType dt : {DType::kF32, DType::kF64}) {
    for (const Config& cf : configs) {
      SCOPED_TRACE(std::string(DTypeName(dt)) + " " + std::to_string(cf.h) + "x" + std::to_string(cf.w) + "x" +
                   std::to_string(cf.c) + " k" + std::to_string(cf.k) + " s" + std::to_string(cf.s));
      const int64_t n = cf.h * cf.w * cf.c;
      const std::vector<double> x = TiedValues(n, 7, 3), grad = TiedValues(n, 3, 1);
      AttrMap attrs = {{"ksize", std::vector<int64_t>{cf.k, cf.k}},
                       {"strides", std::vector<int64_t>{cf.s, cf.s}},
                       {"padding", std::string(cf.same ? "SAME" : "VALID")}};
      const TensorShape xs({1, cf.h, cf.w, cf.c});
      Tensor xt = test::MakeTensorOf(dt, x, xs);
      Tensor y = test::Eval("max_pool", {xt}, attrs);
      ASSERT_TRUE(y.IsInitialized());
      std::vector<double> dy(static_cast<size_t>(y.num_elements()));
      for (size_t i = 0; i < dy.size(); ++i) dy[i] = static_cast<double>(i % 7) - 3.0;
      const NaivePool want = NaiveMaxPool(x, cf.h, cf.w, cf.c, cf.k, cf.s, cf.same, dy, grad);
      ExpectTensorNear(y, want.y, y.shape());
      ExpectTensorNear(test::Eval("max_pool_grad", {xt, test::MakeTensorOf(dt, dy, y.shape())}, attrs), want.dx, xs);
      ExpectTensorNear(test::Eval("max_pool_grad_grad", {xt, test::MakeTensorOf(dt, grad, xs)}, attrs),
                       want.gathered, y.shape());
    }
  }
}

TEST(MaxPool, ShapesAndErrors) {
  const std::vector<DType> f32 = {DType::kF32};
  AttrMap pool2 = {{"ksize", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_EQ(test::InferShapesString("max_pool", {PartialShape({-1, 28, 28, 32})}, f32, pool2), "[?, 14, 14, 32]");
  AttrMap same = pool2;
  same["padding"] = std::string("SAME");
  EXPECT_EQ(test::InferShapesString("max_pool", {PartialShape({4, 7, 7, -1})}, f32, same), "[4, 4, 4, ?]");
  EXPECT_EQ(test::InferShapesString("max_pool", {PartialShape({4, 1, 7, 2})}, f32, pool2),
            "max_pool: the window height 2 is larger than the input height 1 with padding=\"VALID\"");
  AttrMap depth = {{"ksize", std::vector<int64_t>{1, 2, 2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_EQ(test::InferShapesString("max_pool", {PartialShape({4, 8, 8, 2})}, f32, depth),
            "max_pool: ksize [1, 2, 2, 2] must be 1 in the batch and channel dimensions (NHWC); only height and "
            "width windows are supported");
  EXPECT_FALSE(test::RunOp1("max_pool", {test::MakeTensor<float>({1, 2}, {2})}, pool2).ok());
  test::ExpectError(
      test::RunKernel("max_pool_grad",
                      {test::MakeTensor<float>({}, {1, 4, 4, 1}), test::MakeTensor<float>({}, {1, 3, 2, 1})}, pool2),
      Code::kInvalidArgument, "out_backprop has shape [1, 3, 2, 1] but expected [1, 2, 2, 1]");
}

// The checks the CPU and GPU kernels share (ops/nn/pool.h).
TEST(PlanMaxPool, ShapesOfEachMode) {
  nn::WindowAttrs same;
  same.ksize = {3, 3};
  same.strides = {2, 2};
  same.padding = nn::Padding::kSame;
  const TensorShape x({2, 7, 6, 3}), pooled({2, 4, 3, 3});
  auto fwd = nn::PlanMaxPool("max_pool", nn::MaxPoolMode::kForward, same, x, nullptr);
  ASSERT_TRUE(fwd.ok()) << fwd.status().ToString();
  EXPECT_EQ(fwd->pooled, pooled);
  EXPECT_EQ(fwd->out, pooled);
  // TensorFlow: 7 by 3 with stride 2 pads 1 and 1; 6 by 3 pads 0 and 1.
  EXPECT_EQ(std::make_tuple(fwd->g.pad_top, fwd->g.pad_bottom, fwd->g.pad_left, fwd->g.pad_right),
            std::make_tuple(1, 1, 0, 1));
  auto grad = nn::PlanMaxPool("max_pool_grad", nn::MaxPoolMode::kGrad, same, x, &pooled);
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ(grad->out, x);
  auto gradgrad = nn::PlanMaxPool("max_pool_grad_grad", nn::MaxPoolMode::kGradGrad, same, x, &x);
  ASSERT_TRUE(gradgrad.ok()) << gradgrad.status().ToString();
  EXPECT_EQ(gradgrad->out, pooled);
}

TEST(PlanMaxPool, SecondInputOfTheWrongShape) {
  nn::WindowAttrs same;
  same.ksize = {3, 3};
  same.strides = {2, 2};
  same.padding = nn::Padding::kSame;
  const TensorShape x({2, 7, 6, 3}), wrong({2, 3, 3, 3});
  EXPECT_EQ(nn::PlanMaxPool("max_pool_grad", nn::MaxPoolMode::kGrad, same, x, &wrong).status().message(),
            "max_pool_grad: out_backprop has shape [2, 3, 3, 3] but expected [2, 4, 3, 3] for input [2, 7, 6, 3]");
  EXPECT_EQ(nn::PlanMaxPool("max_pool_grad_grad", nn::MaxPoolMode::kGradGrad, same, x, &wrong).status().message(),
            "max_pool_grad_grad: grad has shape [2, 3, 3, 3] but expected [2, 7, 6, 3] for input [2, 7, 6, 3]");
  EXPECT_EQ(nn::PlanMaxPool("max_pool", nn::MaxPoolMode::kForward, same, {7, 6, 3}, nullptr).status().message(),
            "max_pool: input must be 4-D [batch, height, width, channels], got [7, 6, 3]");
}

TEST(MaxPoolGradient, FiniteDifferences) {
  // Distinct values (no ties), so the maximum is differentiable.
  Tensor x = test::RandomF64({2, 5, 6, 2}, -1, 1, 31);
  EXPECT_GRADIENT_OK("max_pool", {x},
                     {{"ksize", std::vector<int64_t>{3, 2}},
                      {"strides", std::vector<int64_t>{2, 2}},
                      {"padding", std::string("SAME")}});
  AttrMap attrs = {{"ksize", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{1, 1}}};
  test::GradCheckOptions wrt_dy;
  wrt_dy.wrt = {1};
  EXPECT_GRADIENT_OK("max_pool_grad", {x, test::RandomF64({2, 4, 5, 2}, -1, 1, 32)}, attrs, wrt_dy);
  EXPECT_GRADIENT_OK("max_pool_grad_grad", {x, test::RandomF64({2, 5, 6, 2}, -1, 1, 33)}, attrs, wrt_dy);
}

}  // namespace
}  // namespace tfg
