// relu_grad, sigmoid_grad, tanh_grad, sqrt_grad, rsqrt_grad: values from
// NumPy (float64) formulas dy * f'(x) written through y = f(x); their own
// gradients checked against finite differences.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::cwise_grad_test {
namespace {

using test::Eval;
using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

struct GradCase {
  const char* op;
  std::vector<double> y, dx;
};

const std::vector<double> kDy = {0.5, -1, 2, 0.25, -0.75, 1.5};

const GradCase kCases[] = {
    {"relu_grad", {0, 1.5, 0, 2, 0.25, 0}, {0.0, -1.0, 0.0, 0.25, -0.75, 0.0}},
    {"sigmoid_grad", {0.1, 0.5, 0.9, 0.25, 0.75, 0.3},
     {0.045000000000000005, -0.25, 0.17999999999999997, 0.046875, -0.140625, 0.31499999999999995}},
    {"tanh_grad", {-0.9, -0.5, 0, 0.3, 0.6, 0.95},
     {0.09499999999999997, -0.75, 2.0, 0.2275, -0.48, 0.14625000000000005}},
    {"sqrt_grad", {0.5, 1, 2, 4, 0.25, 3}, {0.5, -0.5, 0.5, 0.03125, -1.5, 0.25}},
    {"rsqrt_grad", {0.5, 1, 2, 4, 0.25, 3}, {-0.03125, 0.5, -8.0, -8.0, 0.005859375, -20.25}},
};

class CwiseGrad : public ::testing::TestWithParam<DType> {};

TEST_P(CwiseGrad, MatchesNumPy) {
  const DType dt = GetParam();
  const double tol = dt == DType::kF16 ? 2e-2 : dt == DType::kF32 ? 1e-6 : 1e-15;
  for (const GradCase& c : kCases) {
    SCOPED_TRACE(c.op);
    Tensor out = Eval(c.op, {MakeTensorOf(dt, kDy, {2, 3}), MakeTensorOf(dt, c.y, {2, 3})});
    EXPECT_EQ(out.dtype(), dt);
    ExpectTensorNear(out, c.dx, {2, 3}, tol);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CwiseGrad, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(CwiseGrad, RefusesIntegers) {
  auto r = test::RunOp("relu_grad", {MakeTensorOf(DType::kI32, {1}, {1}), MakeTensorOf(DType::kI32, {1}, {1})});
  test::ExpectError(r, Code::kInvalidArgument, "relu_grad");
}

TEST(CwiseGrad, SecondDerivativesMatchFiniteDifferences) {
  const Tensor dy = RandomF64({3, 4}, -1, 1, 5);
  test::GradCheckOptions dy_only;  // relu' is piecewise constant: y gets no gradient
  dy_only.wrt = {0};
  EXPECT_GRADIENT_OK("relu_grad", {dy, RandomF64({3, 4}, -1, 1, 6)}, {}, dy_only);
  EXPECT_GRADIENT_OK("sigmoid_grad", {dy, RandomF64({3, 4}, 0.05, 0.95, 7)});
  EXPECT_GRADIENT_OK("tanh_grad", {dy, RandomF64({3, 4}, -0.95, 0.95, 8)});
  EXPECT_GRADIENT_OK("sqrt_grad", {dy, RandomF64({3, 4}, 0.5, 2, 9)});
  EXPECT_GRADIENT_OK("rsqrt_grad", {dy, RandomF64({3, 4}, 0.5, 2, 10)});
}

}  // namespace
}  // namespace tfg::cwise_grad_test
