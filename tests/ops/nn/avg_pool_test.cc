// avg_pool and its gradient. Expected values from a NumPy loop over windows
// (the mean of each window's valid taps), on x = gen(x_shape, 7, 3, 11, 4.0)
// and dy = gen(y_shape, 3, 2, 7, 2.0) (see nn_test_util.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/nn/pool.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::avg_pool_test {
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
     {0.0, -0.3125, 0.125, 0.5, 0.5, -0.5, -0.75, 0.3125, 0.3125, 0.0, -0.25, 0.125, 0.125, 0.5, 0.25, -0.75},
     {-0.125, 0.25,  -0.125, 0.25,   -0.25, 0.125,  -0.25,  0.125, -0.125, 0.25,  -0.125, 0.25,   -0.25,
      0.125,  -0.25, 0.125,  -0.375, 0.0,   -0.375, 0.0,    0.375, -0.125, 0.375, -0.125, -0.375, 0.0,
      -0.375, 0.0,   0.375,  -0.125, 0.375, -0.125, 0.25,   -0.25, 0.25,   -0.25, 0.125,  -0.375, 0.125,
      -0.375, 0.25,  -0.25,  0.25,   -0.25, 0.125,  -0.375, 0.125, -0.375, 0.0,   0.375,  0.0,    0.375,
      -0.125, 0.25,  -0.125, 0.25,   0.0,   0.375,  0.0,    0.375, -0.125, 0.25,  -0.125, 0.25}},
    {"same_3x3_s2",
     {1, 5, 5, 2},
     {3, 3},
     {2, 2},
     "SAME",
     {1, 3, 3, 2},
     {0.375, 0.0625, 0.125, 0.041666666666666664, -0.125, -0.4375, 0.041666666666666664, -0.041666666666666664, 0.25,
      0.16666666666666666, 0.0, -0.08333333333333333, -0.0625, -0.375, -0.08333333333333333, 0.2916666666666667, 0.125,
      -0.1875},
     {-0.125,
      0.25,
      -0.29166666666666663,
      0.3333333333333333,
      -0.16666666666666666,
      0.08333333333333333,
      -0.5416666666666666,
      0.08333333333333333,
      -0.375,
      0.0,
      0.125,
      0.16666666666666669,
      0.06944444444444448,
      0.1388888888888889,
      -0.05555555555555555,
      -0.027777777777777776,
      -0.3472222222222222,
      -0.2777777777777778,
      -0.2916666666666667,
      -0.25,
      0.25,
      -0.08333333333333333,
      0.3611111111111111,
      -0.19444444444444442,
      0.1111111111111111,
      -0.1111111111111111,
      0.19444444444444442,
      -0.3611111111111111,
      0.08333333333333333,
      -0.25,
      0.25,
      0.2916666666666667,
      0.2777777777777778,
      0.3472222222222222,
      0.027777777777777776,
      0.05555555555555555,
      -0.1388888888888889,
      -0.06944444444444445,
      -0.16666666666666669,
      -0.125,
      0.0,
      0.375,
      -0.08333333333333333,
      0.5416666666666666,
      -0.08333333333333333,
      0.16666666666666666,
      -0.3333333333333333,
      0.29166666666666663,
      -0.25,
      0.125}},
    {"same_2x2_s1",
     {1, 3, 4, 1},
     {2, 2},
     {1, 1},
     "SAME",
     {1, 3, 4, 1},
     {0.4375, 0.125, -0.1875, 0.0, -0.125, -0.4375, -0.0625, 0.125, -0.75, -0.375, 0.0, -0.5},
     {-0.125, 0.125, 0.0, 0.0, -0.5, -0.25, 0.375, 0.125, 0.125, -0.375, 0.125, -1.125}},
    {"valid_3x2_s1x2",
     {1, 5, 6, 3},
     {3, 2},
     {1, 2},
     "VALID",
     {1, 3, 3, 3},
     {-0.2916666666666667,
      0.5416666666666666,
      0.0,
      -0.3333333333333333,
      0.041666666666666664,
      -0.041666666666666664,
      0.5416666666666666,
      0.0,
      -0.5416666666666666,
      0.041666666666666664,
      -0.041666666666666664,
      0.3333333333333333,
      0.0,
      -0.5416666666666666,
      0.2916666666666667,
      -0.041666666666666664,
      0.3333333333333333,
      -0.20833333333333334,
      -0.5416666666666666,
      0.2916666666666667,
      0.20833333333333334,
      0.3333333333333333,
      -0.20833333333333334,
      -0.2916666666666667,
      0.2916666666666667,
      0.20833333333333334,
      -0.3333333333333333},
     {-0.08333333333333333,
      0.16666666666666666,
      -0.16666666666666666,
      -0.08333333333333333,
      0.16666666666666666,
      -0.16666666666666666,
      0.08333333333333333,
      -0.25,
      0.0,
      0.08333333333333333,
      -0.25,
      0.0,
      0.25,
      -0.08333333333333333,
      0.16666666666666666,
      0.25,
      -0.08333333333333333,
      0.16666666666666666,
      -0.25,
      0.25,
      -0.41666666666666663,
      -0.25,
      0.25,
      -0.41666666666666663,
      0.08333333333333333,
      0.0,
      -0.08333333333333333,
      0.08333333333333333,
      0.0,
      -0.08333333333333333,
      0.41666666666666663,
      -0.25,
      0.25,
      0.41666666666666663,
      -0.25,
      0.25,
      -0.5,
      0.25,
      -0.16666666666666663,
      -0.5,
      0.25,
      -0.16666666666666663,
      0.0,
      0.16666666666666666,
      -0.25,
      0.0,
      0.16666666666666666,
      -0.25,
      0.49999999999999994,
      -0.5,
      0.25,
      0.49999999999999994,
      -0.5,
      0.25,
      -0.41666666666666663,
      0.08333333333333333,
      0.0,
      -0.41666666666666663,
      0.08333333333333333,
      0.0,
      -0.08333333333333333,
      0.41666666666666663,
      -0.25,
      -0.08333333333333333,
      0.41666666666666663,
      -0.25,
      0.25,
      -0.41666666666666663,
      0.08333333333333333,
      0.25,
      -0.41666666666666663,
      0.08333333333333333,
      -0.25,
      0.0,
      0.25,
      -0.25,
      0.0,
      0.25,
      -0.08333333333333333,
      0.16666666666666666,
      -0.16666666666666666,
      -0.08333333333333333,
      0.16666666666666666,
      -0.16666666666666666,
      0.08333333333333333,
      -0.25,
      0.0,
      0.08333333333333333,
      -0.25,
      0.0}},
};

class AvgPool : public ::testing::TestWithParam<DType> {};

TEST_P(AvgPool, ForwardAndGradientMatchNumPy) {
  const DType dt = GetParam();
  for (const PoolCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Tensor x = Gen(dt, TensorShape(c.x), 7, 3, 11, 4.0);
    Tensor dy = Gen(dt, TensorShape(c.y), 3, 2, 7, 2.0);
    ExpectTensorNear(test::Eval("avg_pool", {x}, Attrs(c)), c.y_vals, TensorShape(c.y), Tol(dt));
    ExpectTensorNear(test::Eval("avg_pool_grad", {x, dy}, Attrs(c)), c.dx_vals, TensorShape(c.x), Tol(dt));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, AvgPool, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(AvgPool, SamePaddingLeavesPaddingOutOfTheMean) {
  // 3x3 windows, stride 1, SAME on a 2x2 image: every window sees all four
  // values (the rest is padding), so every output is their mean.
  Tensor x = test::MakeTensor<double>({1, 2, 3, 6}, {1, 2, 2, 1});
  AttrMap attrs = {
      {"ksize", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{1, 1}}, {"padding", std::string("SAME")}};
  ExpectTensorNear(test::Eval("avg_pool", {x}, attrs), {3, 3, 3, 3}, {1, 2, 2, 1});
}

TEST(AvgPool, ShapeErrors) {
  AttrMap pool2 = {{"ksize", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
  EXPECT_EQ(test::InferShapesString("avg_pool_grad", {PartialShape({1, 4, 4, 1}), PartialShape({1, 3, 3, 1})},
                                    {DType::kF32, DType::kF32}, pool2),
            "avg_pool_grad: out_backprop has shape [1, 3, 3, 1] but pooling [1, 4, 4, 1] gives [1, 2, 2, 1]");
  EXPECT_EQ(test::InferShapesString("avg_pool", {PartialShape({1, 4, 4, 1})}, {DType::kF32},
                                    {{"ksize", std::vector<int64_t>{2, 2}}}),
            "avg_pool: missing required argument 'strides'");
}

// The checks the CPU and GPU kernels share (ops/nn/pool.h).
TEST(PlanAvgPool, ShapesAndErrors) {
  nn::WindowAttrs valid;
  valid.ksize = {2, 2};
  valid.strides = {2, 2};
  const TensorShape x({2, 7, 6, 3}), pooled({2, 3, 3, 3});
  auto fwd = nn::PlanAvgPool("avg_pool", valid, x, nullptr);
  ASSERT_TRUE(fwd.ok()) << fwd.status().ToString();
  EXPECT_EQ(fwd->pooled, pooled);
  EXPECT_EQ(fwd->out, pooled);
  EXPECT_EQ(std::make_tuple(fwd->g.pad_top, fwd->g.pad_bottom, fwd->g.pad_left, fwd->g.pad_right),
            std::make_tuple(0, 0, 0, 0));
  auto grad = nn::PlanAvgPool("avg_pool_grad", valid, x, &pooled);
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ(grad->out, x);
  const TensorShape wrong({2, 4, 3, 3});
  EXPECT_EQ(nn::PlanAvgPool("avg_pool_grad", valid, x, &wrong).status().message(),
            "avg_pool_grad: out_backprop has shape [2, 4, 3, 3] but pooling [2, 7, 6, 3] gives [2, 3, 3, 3]");
  EXPECT_EQ(nn::PlanAvgPool("avg_pool", valid, {2, 1, 6, 3}, nullptr).status().message(),
            "avg_pool: the window height 2 is larger than the input height 1 with padding=\"VALID\"");
}

TEST(AvgPoolGradient, FiniteDifferences) {
  Tensor x = test::RandomF64({2, 5, 5, 2}, -1, 1, 41);
  AttrMap attrs = {
      {"ksize", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}}, {"padding", std::string("SAME")}};
  EXPECT_GRADIENT_OK("avg_pool", {x}, attrs);
  test::GradCheckOptions wrt_dy;
  wrt_dy.wrt = {1};
  EXPECT_GRADIENT_OK("avg_pool_grad", {x, test::RandomF64({2, 3, 3, 2}, -1, 1, 42)}, attrs, wrt_dy);
}

}  // namespace
}  // namespace tfg::avg_pool_test
