// gelu, exact and approximate. float32 and float16 values recorded from
// TensorFlow 2.21 (tf.nn.gelu). float64 values and gradients computed with
// mpmath at 30 digits from TensorFlow's formulas: TensorFlow's own float64
// results are off from them by up to 3e-8 relative (-0.16565411650070613
// for the exact gelu of -0.9, where the true value is -0.16565411281208354).
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::gelu_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kX = {-0.9, -0.3, 0.0, 0.25, 0.8};
const AttrMap kApproximate = {{"approximate", true}};

TEST(GeluTest, ExactForm) {
  ExpectTensorNear(Eval("gelu", {MakeTensor<double>(kX, {5})}),
                   {-0.16565411281208354, -0.1146265733433142, 0.0, 0.14967658142073093, 0.6305156811332827}, {5},
                   1e-15);
  ExpectTensorNear(Eval("gelu", {MakeTensorOf(DType::kF32, kX, {5})}),
                   {-0.16565413773059845, -0.11462657898664474, 0.0, 0.14967657625675201, 0.6305156946182251}, {5},
                   2e-7);
  ExpectTensorNear(Eval("gelu", {MakeTensorOf(DType::kF16, {-0.9, 0.25, 0.8}, {3})}),
                   {-0.1656494140625, 0.149658203125, 0.63037109375}, {3}, 1e-3);
  // erfc keeps the far negative tail (-5.5e-88 at -20); -inf * 0 is NaN at
  // -inf, as in TensorFlow.
  const double inf = std::numeric_limits<double>::infinity();
  ExpectTensorNear(Eval("gelu", {MakeTensor<double>({inf, -inf, 20.0, -20.0}, {4})}),
                   {inf, std::numeric_limits<double>::quiet_NaN(), 20.0, -5.507248237212467e-88}, {4}, 1e-100);
}

TEST(GeluTest, TanhForm) {
  ExpectTensorNear(Eval("gelu", {MakeTensor<double>(kX, {5})}, kApproximate),
                   {-0.16577151129027944, -0.11462907645724074, 0.0, 0.149675350701685, 0.6304316914364482}, {5},
                   1e-15);
  ExpectTensorNear(Eval("gelu", {MakeTensorOf(DType::kF32, kX, {5})}, kApproximate),
                   {-0.1657715141773224, -0.11462908238172531, 0.0, 0.14967535436153412, 0.6304317116737366}, {5},
                   2e-7);
  ExpectTensorNear(Eval("gelu", {MakeTensor<float>({}, {0, 2})}, kApproximate), {}, {0, 2});
}

TEST(GeluTest, GradientsMatchTheDerivative) {
  const Tensor x = MakeTensor<double>(kX, {5});
  const Tensor ones = MakeTensor<double>({1, 1, 1, 1, 1}, {5});
  auto exact = test::SymbolicGradients("gelu", {x}, {}, ones);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  ExpectTensorNear((*exact)[0],
                   {-0.05541659956211986, 0.26767223317289013, 0.5, 0.695373354883636, 1.0198978436257895}, {5},
                   1e-15);
  auto approximate = test::SymbolicGradients("gelu", {x}, kApproximate, ones);
  ASSERT_TRUE(approximate.ok()) << approximate.status().ToString();
  ExpectTensorNear((*approximate)[0],
                   {-0.055067204759616656, 0.26770454836119817, 0.5, 0.6953540951510604, 1.0195837310573033}, {5},
                   1e-15);
}

TEST(GeluTest, GradientsMatchFiniteDifferences) {
  const Tensor x = test::RandomF64({2, 3}, -3, 3);
  EXPECT_GRADIENT_OK("gelu", {x});
  EXPECT_GRADIENT_OK("gelu", {x}, kApproximate);
}

TEST(GeluTest, IntegersAreRefused) {
  ExpectError(test::RunOp1("gelu", {MakeTensor<int32_t>({1}, {1})}), Code::kInvalidArgument, "i32");
}

}  // namespace
}  // namespace tfg::gelu_test
