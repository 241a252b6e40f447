// leaky_relu, elu, softplus, relu6 and their gradient helpers: values from
// NumPy (np.where / np.expm1 / np.logaddexp(0, x) / np.clip).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;

const std::vector<double> kX = {-3.0, -0.5, 0.0, 0.25, 2.0, 7.0, -50.0, 50.0};

class Activations : public ::testing::TestWithParam<DType> {
 protected:
  Tensor X() const { return test::MakeTensorOf(GetParam(), kX, {2, 4}); }
  Tensor Ones() const { return test::MakeTensorOf(GetParam(), std::vector<double>(8, 1.0), {2, 4}); }
  // Relative 1e-3 for f16 (50 is exact, its neighbours are 0.03 apart).
  double tol() const { return GetParam() == DType::kF16 ? 4e-3 : test::Tol(GetParam()); }
  void Expect(const std::string& op, const std::vector<double>& forward, const std::vector<double>& slope,
              AttrMap attrs = {}) {
    SCOPED_TRACE(op);
    Tensor y = test::Eval(op, {X()}, attrs);
    EXPECT_EQ(y.dtype(), GetParam());
    ExpectTensorNear(y, forward, {2, 4}, tol());
    ExpectTensorNear(test::Eval(op + "_grad", {Ones(), X()}, attrs), slope, {2, 4}, tol());
  }
};

TEST_P(Activations, MatchNumPy) {
  Expect("leaky_relu", {-0.6000000000000001, -0.1, 0.0, 0.25, 2.0, 7.0, -10.0, 50.0},
         {0.2, 0.2, 0.2, 1.0, 1.0, 1.0, 0.2, 1.0});
  Expect("leaky_relu", {-0.30000000000000004, -0.05, 0.0, 0.25, 2.0, 7.0, -5.0, 50.0},
         {0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 0.1, 1.0}, {{"alpha", 0.1}});
  Expect("elu", {-0.950212931632136, -0.3934693402873666, 0.0, 0.25, 2.0, 7.0, -1.0, 50.0},
         {0.049787068367863944, 0.6065306597126334, 1.0, 1.0, 1.0, 1.0, 1.9287498479639178e-22, 1.0});
  Expect("softplus",
         {0.04858735157374206, 0.4740769841801067, 0.6931471805599453, 0.8259394198788436, 2.1269280110429727,
          7.000911466453775, 1.9287498479639178e-22, 50.0},
         {0.04742587317756678, 0.3775406687981454, 0.5, 0.5621765008857981, 0.8807970779778823, 0.9990889488055994,
          1.928749847963918e-22, 1.0});
  Expect("relu6", {0.0, 0.0, 0.0, 0.25, 2.0, 6.0, 0.0, 6.0}, {0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Activations, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(Activations, SoftplusDoesNotOverflow) {
  ExpectTensorNear(test::Eval("softplus", {test::MakeTensor<float>({1000, -1000}, {2})}), {1000, 0}, {2});
  ExpectTensorNear(
      test::Eval("softplus_grad", {test::MakeTensor<float>({1, 1}, {2}), test::MakeTensor<float>({1000, -1000}, {2})}),
      {1, 0}, {2});
}

TEST(Activations, Errors) {
  EXPECT_FALSE(test::RunOp1("elu", {test::MakeTensor<int32_t>({1}, {1})}).ok());
  Tensor x = test::MakeTensor<float>({1, 2}, {2});
  test::ExpectError(test::RunKernel("relu6_grad", {test::MakeTensor<float>({1}, {1}), x}), Code::kInvalidArgument,
                    "relu6_grad: dy has shape [1] but x has shape [2]");
}

TEST(ActivationsGradient, FiniteDifferences) {
  // Values away from the kinks at 0 and 6.
  Tensor x = test::MakeTensor<double>({-2.5, -0.7, -0.1, 0.3, 1.5, 5.5, 6.5, 9.0}, {2, 4});
  EXPECT_GRADIENT_OK("leaky_relu", {x}, {{"alpha", 0.3}});
  EXPECT_GRADIENT_OK("elu", {x});
  EXPECT_GRADIENT_OK("softplus", {x});
  EXPECT_GRADIENT_OK("relu6", {x});
  test::GradCheckOptions wrt_dy;
  wrt_dy.wrt = {0};
  Tensor dy = test::RandomF64({2, 4}, -1, 1, 91);
  EXPECT_GRADIENT_OK("leaky_relu_grad", {dy, x}, {{"alpha", 0.3}}, wrt_dy);
  EXPECT_GRADIENT_OK("relu6_grad", {dy, x}, {}, wrt_dy);
  test::ExpectError(test::CheckGradient("elu_grad", {dy, x}), Code::kUnimplemented,
                    "elu_grad: second derivatives through this op are not supported yet");
}

}  // namespace
}  // namespace tfg
