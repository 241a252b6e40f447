// sum_grad, mean_grad, max_grad, min_grad, prod_grad: values from NumPy
// (float64) on x = [[[1, 3], [3, 0], [2, 3]], [[-1, 0.5], [0, 0], [2, -4]]]
// (ties for max and min, groups with one and two zeros for prod) and
// dy = arange(n) * 0.5 - 1.25 in the reduced shape. Max/min reference:
// mask = (x == y), dx = mask * dy / sum(mask); prod reference: dy times the
// product of the group's other elements, by brute force.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::reduction_grad_test {
namespace {

using test::Eval;
using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

const std::vector<double> kX = {1, 3, 3, 0, 2, 3, -1, 0.5, 0, 0, 2, -4};
const TensorShape kXShape{2, 3, 2};

struct Case {
  const char* op;
  AttrValue axis;
  bool keepdims;
  TensorShape dy_shape;
  std::vector<double> dy, y, dx;  // y only for max_grad / min_grad
};

AttrMap Attrs(const Case& c) { return {{"axis", c.axis}, {"keepdims", c.keepdims}}; }

const Case kCases[] = {
    {"sum_grad", std::vector<int64_t>{1}, false, {2, 2}, {-1.25, -0.75, -0.25, 0.25}, {},
     {-1.25, -0.75, -1.25, -0.75, -1.25, -0.75, -0.25, 0.25, -0.25, 0.25, -0.25, 0.25}},
    {"mean_grad", std::vector<int64_t>{0, -1}, true, {1, 3, 1}, {-1.25, -0.75, -0.25}, {},
     {-0.3125, -0.3125, -0.1875, -0.1875, -0.0625, -0.0625, -0.3125, -0.3125, -0.1875, -0.1875, -0.0625, -0.0625}},
    {"mean_grad", std::monostate{}, false, {}, {1.5}, {}, std::vector<double>(12, 0.125)},
    {"max_grad", std::vector<int64_t>{1}, false, {2, 2}, {-1.25, -0.75, -0.25, 0.25}, {3, 3, 2, 0.5},
     {0, -0.375, -1.25, 0, 0, -0.375, 0, 0.25, 0, 0, -0.25, 0}},
    {"max_grad", std::vector<int64_t>{0, 2}, false, {3}, {-1.25, -0.75, -0.25}, {3, 3, 3},
     {0, -1.25, -0.75, 0, 0, -0.25, 0, 0, 0, 0, 0, 0}},
    {"min_grad", std::vector<int64_t>{0, 2}, true, {1, 3, 1}, {-1.25, -0.75, -0.25}, {-1, 0, -4},
     {0, 0, 0, -0.25, 0, 0, -1.25, 0, -0.25, -0.25, 0, -0.25}},
    {"min_grad", std::monostate{}, false, {}, {1.5}, {-4}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5}},
    {"prod_grad", std::vector<int64_t>{2}, false, {2, 3}, {-1.25, -0.75, -0.25, 0.25, 0.75, 1.25}, {},
     {-3.75, -1.25, 0, -2.25, -0.75, -0.5, 0.125, -0.25, 0, 0, -5, 2.5}},
    {"prod_grad", std::vector<int64_t>{0, 2}, true, {1, 3, 1}, {-1.25, -0.75, -0.25}, {},
     {1.875, 0.625, 0, 0, 6, 4, -1.875, 3.75, 0, 0, 6, -3}},
};

class ReductionGrad : public ::testing::TestWithParam<DType> {};

TEST_P(ReductionGrad, MatchesNumPy) {
  const DType dt = GetParam();
  const double tol = dt == DType::kF16 ? 1e-2 : 1e-12;
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.op) + " axis " + AttrValueToString(c.axis) + (c.keepdims ? " keepdims" : ""));
    std::vector<Tensor> inputs{MakeTensorOf(dt, c.dy, c.dy_shape), MakeTensorOf(dt, kX, kXShape)};
    if (!c.y.empty()) inputs.push_back(MakeTensorOf(dt, c.y, c.dy_shape));
    Tensor dx = Eval(c.op, inputs, Attrs(c));
    EXPECT_EQ(dx.dtype(), dt);
    ExpectTensorNear(dx, c.dx, kXShape, tol);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ReductionGrad, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(ReductionGrad, NaNResultRoutesToTheNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = MakeTensorOf(DType::kF64, {1, nan, 5, 2}, {4});
  Tensor dx = Eval("max_grad", {MakeTensorOf(DType::kF64, {2}, {}), x, MakeTensorOf(DType::kF64, {nan}, {})});
  ExpectTensorNear(dx, {0, 2, 0, 0}, {4});
}

TEST(ReductionGrad, LargeInnerReductionSpreadsEveryElement) {
  // mean over axis 0 of [300, 70]: the broadcast walk with many runs.
  Tensor dy = RandomF64({70}, -1, 1, 3);
  Tensor dx = Eval("mean_grad", {dy, RandomF64({300, 70})}, {{"axis", std::vector<int64_t>{0}}});
  ASSERT_EQ(dx.shape(), TensorShape({300, 70}));
  for (int64_t i = 0; i < dx.num_elements(); ++i) {
    ASSERT_DOUBLE_EQ(dx.data<double>()[i], dy.data<double>()[i % 70] / 300) << "at " << i;
  }
}

TEST(ReductionGrad, EmptyInputGivesEmptyGradient) {
  Tensor dx = Eval("sum_grad", {MakeTensorOf(DType::kF32, {}, {0}), MakeTensorOf(DType::kF32, {}, {0, 3})},
                   {{"axis", std::vector<int64_t>{1}}});
  EXPECT_EQ(dx.shape(), TensorShape({0, 3}));
}

TEST(ReductionGrad, WrongDyShapeNamesBothShapes) {
  auto r = test::RunOp("sum_grad", {RandomF64({3}), RandomF64({2, 3})}, {{"axis", std::vector<int64_t>{1}}});
  test::ExpectError(r, Code::kInvalidArgument,
                    "sum_grad: input dy has shape [3] but reducing x of shape [2, 3] gives [2]");
  auto k = test::RunKernel("max_grad", {RandomF64({2}), RandomF64({2, 3}), RandomF64({2, 1})},
                           {{"axis", std::vector<int64_t>{1}}});
  test::ExpectError(k, Code::kInvalidArgument,
                    "max_grad: input y has shape [2, 1] but reducing x of shape [2, 3] gives [2]");
  auto axis = test::RunOp("mean_grad", {RandomF64({2}), RandomF64({2, 3})}, {{"axis", std::vector<int64_t>{2}}});
  test::ExpectError(axis, Code::kInvalidArgument, "mean_grad: axis 2 is out of range for rank 2");
}

TEST(ReductionGrad, SecondDerivativesMatchFiniteDifferences) {
  const Tensor x = RandomF64({3, 4}, -1, 1, 5);
  const AttrMap axis1{{"axis", std::vector<int64_t>{1}}};
  const AttrMap axis0_keep{{"axis", std::vector<int64_t>{0}}, {"keepdims", true}};
  test::GradCheckOptions dy_only;
  dy_only.wrt = {0};
  EXPECT_GRADIENT_OK("sum_grad", {RandomF64({3}), x}, axis1, dy_only);
  EXPECT_GRADIENT_OK("mean_grad", {RandomF64({1, 4}), x}, axis0_keep, dy_only);
  EXPECT_GRADIENT_OK("max_grad", {RandomF64({3}), x, Eval("max", {x}, axis1)}, axis1, dy_only);
  EXPECT_GRADIENT_OK("min_grad", {RandomF64({1, 4}), x, Eval("min", {x}, axis0_keep)}, axis0_keep, dy_only);
}

TEST(ReductionGrad, ProdSecondDerivativeIsUnimplemented) {
  auto r = test::CheckGradient("prod_grad", {RandomF64({3}), RandomF64({3, 4})}, {{"axis", std::vector<int64_t>{1}}});
  test::ExpectError(r, Code::kUnimplemented, "prod_grad: second derivatives through prod are not supported yet");
}

}  // namespace
}  // namespace tfg::reduction_grad_test
