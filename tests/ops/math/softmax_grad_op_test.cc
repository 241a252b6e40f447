// softmax_grad and log_softmax_grad: values from NumPy (float64) for
// x = [[1, 2, 3], [0.5, -1, 2]], dy = [[0.5, -1, 2], [1, 0.25, -0.75]]:
//   y = softmax(x, axis);      dx = y * (dy - sum(dy * y, axis))
//   y = log_softmax(x, axis);  dx = dy - exp(y) * sum(dy, axis)
// Their own gradients are checked against finite differences.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::softmax_grad_test {
namespace {

using test::Eval;
using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

struct Case {
  const char* op;
  int64_t axis;
  std::vector<double> y, dx;
};

const std::vector<double> kDy = {0.5, -1, 2, 1, 0.25, -0.75};

const Case kCases[] = {
    {"softmax_grad", -1,
     {0.09003057317038046, 0.24472847105479764, 0.6652409557748218, 0.1752903921400367, 0.039112573270687456,
      0.7855970345892759},
     {-0.056788470036966944, -0.5214597727496746, 0.5782482427866417, 0.24613036517977577, 0.025584677846939297,
      -0.2717150430267151}},
    {"log_softmax_grad", -1,
     {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804, -1.7413112966571571, -3.241311296657157,
      -0.24131129665715703},
     {0.36495414024442935, -1.3670927065821965, 1.0021385663377673, 0.9123548039299817, 0.23044371336465627,
      -1.142798517294638}},
    {"softmax_grad", 0,
     {0.6224593312018546, 0.9525741268224334, 0.7310585786300049, 0.37754066879814546, 0.04742587317756679,
      0.2689414213699951},
     {-0.11750185610079728, -0.05647082466364003, 0.540682816414075, 0.11750185610079723, 0.05647082466364018,
      -0.5406828164140751}},
    {"log_softmax_grad", 0,
     {-0.4740769841801067, -0.04858735157374196, -0.31326168751822286, -0.9740769841801067, -3.048587351573742,
      -1.3132616875182228},
     {-0.43368899680278195, -0.28556940488317506, 1.086176776712494, 0.43368899680278195, 0.28556940488317506,
      -1.086176776712494}},
};

class SoftmaxGrad : public ::testing::TestWithParam<DType> {};

TEST_P(SoftmaxGrad, MatchesNumPy) {
  const DType dt = GetParam();
  const double tol = dt == DType::kF16 ? 1e-2 : dt == DType::kF32 ? 1e-6 : 1e-15;
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.op) + " axis " + std::to_string(c.axis));
    Tensor dx = Eval(c.op, {MakeTensorOf(dt, kDy, {2, 3}), MakeTensorOf(dt, c.y, {2, 3})}, {{"axis", c.axis}});
    EXPECT_EQ(dx.dtype(), dt);
    ExpectTensorNear(dx, c.dx, {2, 3}, tol);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxGrad, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(SoftmaxGrad, MiddleAxisMatchesLastAxisOfTransposed) {
  // Over axis 1 of [2, 3, 4], each (i, k) line is independent: compare with
  // lines gathered by hand.
  const Tensor dy = RandomF64({2, 3, 4}, -1, 1, 3);
  const Tensor y = Eval("softmax", {RandomF64({2, 3, 4}, -2, 2, 4)}, {{"axis", int64_t{1}}});
  const Tensor dx = Eval("softmax_grad", {dy, y}, {{"axis", int64_t{1}}});
  const double* pdy = dy.data<double>();
  const double* py = y.data<double>();
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += pdy[i * 12 + j * 4 + k] * py[i * 12 + j * 4 + k];
      for (int j = 0; j < 3; ++j) {
        const int at = i * 12 + j * 4 + k;
        EXPECT_NEAR(dx.data<double>()[at], py[at] * (pdy[at] - s), 1e-15) << "at " << at;
      }
    }
  }
}

TEST(SoftmaxGrad, ShapeErrorsNameBothShapes) {
  auto r = test::RunOp("softmax_grad", {RandomF64({2, 3}), RandomF64({2, 4})});
  test::ExpectError(r, Code::kInvalidArgument, "softmax_grad: dy has shape [2, 3] but y has shape [2, 4]");
  auto axis = test::RunOp("log_softmax_grad", {RandomF64({2, 3}), RandomF64({2, 3})}, {{"axis", int64_t{2}}});
  test::ExpectError(axis, Code::kInvalidArgument, "axis 2 is out of range for rank 2");
}

TEST(SoftmaxGrad, SecondDerivativesMatchFiniteDifferences) {
  const Tensor dy = RandomF64({3, 4}, -1, 1, 5);
  const Tensor y = Eval("softmax", {RandomF64({3, 4}, -2, 2, 6)});
  EXPECT_GRADIENT_OK("softmax_grad", {dy, y});
  EXPECT_GRADIENT_OK("softmax_grad", {dy, Eval("softmax", {RandomF64({3, 4})}, {{"axis", int64_t{0}}})},
                     {{"axis", int64_t{0}}});
  EXPECT_GRADIENT_OK("log_softmax_grad", {dy, Eval("log_softmax", {RandomF64({3, 4}, -2, 2, 7)})});
  EXPECT_GRADIENT_OK("log_softmax_grad", {dy, Eval("log_softmax", {RandomF64({3, 4})}, {{"axis", int64_t{0}}})},
                     {{"axis", int64_t{0}}});
}

}  // namespace
}  // namespace tfg::softmax_grad_test
