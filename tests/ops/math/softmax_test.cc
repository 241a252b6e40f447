// softmax/log_softmax: values recorded from NumPy (float64, max-subtracted).
#include <cmath>

#include <gtest/gtest.h>

#include "ops/math/softmax.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

class Softmax : public ::testing::TestWithParam<DType> {
 protected:
  double tol() const { return GetParam() == DType::kF16 ? 2e-3 : GetParam() == DType::kF32 ? 1e-6 : 1e-14; }
};

TEST_P(Softmax, LastAxisWithHugeLogits) {
  // Rows 2 and 3 would overflow exp() without subtracting the max.
  Tensor x = MakeTensorOf(GetParam(), {1, 2, 3, 1000, 1001, 1002, -1000, 0, 1000}, {3, 3});
  Tensor s = Eval("softmax", {x});
  ExpectTensorNear(s, {0.09003057317038046, 0.24472847105479764, 0.6652409557748218, 0.09003057317038046,
                       0.24472847105479764, 0.6652409557748218, 0.0, 0.0, 1.0},
                   {3, 3}, tol());
  EXPECT_EQ(s.dtype(), GetParam());
  if (GetParam() == DType::kF16) return;  // 1002 - log-sum is not representable to 1e-3 in f16
  ExpectTensorNear(Eval("log_softmax", {x}),
                   {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804, -2.4076059644443806,
                    -1.4076059644443804, -0.4076059644443804, -2000.0, -1000.0, 0.0},
                   {3, 3}, tol());
}

TEST_P(Softmax, FirstAxis) {
  Tensor x = MakeTensorOf(GetParam(), {1, 2, 3, 5, 0, -1}, {3, 2});
  ExpectTensorNear(Eval("softmax", {x}, {{"axis", int64_t{0}}}),
                   {0.11419519938459449, 0.04731415522182405, 0.8437947344813395, 0.9503302116973794,
                    0.04201006613406605, 0.0023556330807966807},
                   {3, 2}, tol());
  ExpectTensorNear(Eval("log_softmax", {x}, {{"axis", int64_t{-2}}}),
                   {-2.1698460195562856, -3.050945763522998, -0.16984601955628567, -0.05094576352299828,
                    -3.1698460195562856, -6.050945763522998},
                   {3, 2}, tol() * 4);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Softmax, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(Softmax, MiddleAxisRowsSumToOne) {
  // [4, 5, 6] over axis 1: every (i, k) line sums to 1.
  std::vector<double> v(120);
  for (int i = 0; i < 120; ++i) v[i] = std::sin(i * 1.3) * 30;
  Tensor s = Eval("softmax", {MakeTensorOf(DType::kF64, v, {4, 5, 6})}, {{"axis", int64_t{1}}});
  Tensor sums = Eval("sum", {s}, {{"axis", std::vector<int64_t>{1}}});
  ExpectTensorNear(sums, std::vector<double>(24, 1.0), {4, 6}, 1e-14);
  // And matches exp(log_softmax).
  Tensor ls = Eval("log_softmax", {MakeTensorOf(DType::kF64, v, {4, 5, 6})}, {{"axis", int64_t{1}}});
  ExpectTensorNear(Eval("exp", {ls}), test::ToDoubles(s), {4, 5, 6}, 1e-14);
}

TEST(Softmax, ShapesAndErrors) {
  ExpectTensorNear(Eval("softmax", {MakeTensor<float>({}, {0, 3})}), {}, {0, 3});
  ExpectTensorNear(Eval("softmax", {MakeTensor<float>({7}, {1})}), {1}, {1});
  EXPECT_EQ(test::InferShapesString("softmax", {PartialShape({-1, 10})}, {DType::kF32}), "[?, 10]");
  EXPECT_EQ(test::InferShapesString("softmax", {PartialShape({-1, 10})}, {DType::kF32}, {{"axis", int64_t{2}}}),
            "softmax: axis 2 is out of range for rank 2 (input shape [?, 10])");
  EXPECT_EQ(test::InferShapesString("log_softmax", {PartialShape({})}, {DType::kF32}),
            "log_softmax: logits must have rank >= 1, got a scalar");
  EXPECT_FALSE(test::RunOp1("softmax", {MakeTensor<int32_t>({1, 2}, {2})}).ok());
}

// The checks the CPU and GPU kernels share (ops/math/softmax.h).
TEST(SoftmaxLayout, LinesAroundTheAxis) {
  auto middle = MakeSoftmaxLayout("softmax", {4, 6, 3}, 1);
  ASSERT_TRUE(middle.ok()) << middle.status().ToString();
  EXPECT_EQ(std::make_tuple(middle->axis, middle->outer, middle->n, middle->inner), std::make_tuple(1, 4, 6, 3));
  auto last = MakeSoftmaxLayout("softmax", {5, 300}, SoftmaxAxisAttr({}));
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(std::make_tuple(last->axis, last->outer, last->n, last->inner), std::make_tuple(1, 5, 300, 1));
  EXPECT_EQ(MakeSoftmaxLayout("softmax", {}, -1).status().message(),
            "softmax: logits must have rank >= 1, got a scalar");
  EXPECT_EQ(MakeSoftmaxLayout("log_softmax", {5, 300}, -3).status().message(),
            "log_softmax: axis -3 is out of range for rank 2 (input shape [5, 300])");
}

}  // namespace
}  // namespace tfg
