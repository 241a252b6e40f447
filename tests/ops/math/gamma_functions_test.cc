// lgamma and digamma. Values recorded from TensorFlow 2.21
// (tf.math.lgamma, tf.math.digamma in float64; lgamma's gradient from
// tf.GradientTape, which is digamma).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::gamma_functions_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<double> kX = {-2.5, -0.5, 0.1, 0.5, 1.0, 2.0, 3.7, 12.0, 150.0};
const std::vector<double> kLgamma = {-0.05624371649767407, 1.2655121234846454, 2.2527126517342055,
                                     0.5723649429247001,   0.0,                0.0,
                                     1.428072326665388,    17.502307845873887, 600.0094705553274};
const std::vector<double> kDigamma = {1.1031566406452433,  0.03648997397857645, -10.423754940411076,
                                      -1.9635100260214227, -0.5772156649015323, 0.42278433509846747,
                                      1.167153539361511,   2.4426616799758123,  5.007298257075679};

TEST(GammaFunctionsTest, MatchTensorFlowInFloat64) {
  ExpectTensorNear(Eval("lgamma", {MakeTensor<double>(kX, {9})}), kLgamma, {9}, 1e-15);
  ExpectTensorNear(Eval("digamma", {MakeTensor<double>(kX, {9})}), kDigamma, {9}, 1e-15);
}

// Both compute in f64 and round once, within an f32 / f16 rounding of
// TensorFlow's float64 values.
TEST(GammaFunctionsTest, NarrowFloats) {
  for (DType dtype : {DType::kF32, DType::kF16}) {
    SCOPED_TRACE(DTypeName(dtype));
    const double tol = dtype == DType::kF16 ? 4e-3 : 2e-7;
    const std::vector<double> x = {0.5, 1.0, 2.0, 3.75, 12.0};  // exact in f16
    const Tensor y = Eval("lgamma", {MakeTensorOf(dtype, x, {5})});
    EXPECT_EQ(y.dtype(), dtype);
    // lgamma(3.75) = 1.4868155785934171 by mpmath (3.75 is exact in f16; 3.7 is not).
    ExpectTensorNear(y, {0.5723649429247001, 0.0, 0.0, 1.4868155785934171, 17.502307845873887}, {5}, tol);
  }
  ExpectTensorNear(Eval("digamma", {MakeTensor<float>({}, {0, 2})}), {}, {0, 2});
}

// At the poles lgamma is +inf and digamma NaN; digamma(inf) = inf, as
// TensorFlow's float64 kernels give.
TEST(GammaFunctionsTest, PolesAndInfinities) {
  const Tensor e = MakeTensor<double>({0.0, -1.0, -2.0, kInf, -kInf, kNaN}, {6});
  ExpectTensorNear(Eval("lgamma", {e}), {kInf, kInf, kInf, kInf, kInf, kNaN}, {6});
  ExpectTensorNear(Eval("digamma", {e}), {kNaN, kNaN, kNaN, kInf, kNaN, kNaN}, {6});
}

TEST(GammaFunctionsTest, Gradients) {
  auto g = test::SymbolicGradients("lgamma", {MakeTensor<double>(kX, {9})}, {},
                                   MakeTensor<double>(std::vector<double>(9, 1.0), {9}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], kDigamma, {9}, 1e-15);
  EXPECT_GRADIENT_OK("lgamma", {test::RandomF64({2, 3}, 0.5, 4)});
  // digamma's own gradient is a clear error, never a silent zero.
  ExpectError(test::CheckGradient("digamma", {test::RandomF64({2}, 0.5, 4)}), Code::kUnimplemented,
              "digamma: its gradient, polygamma(1, x), is not supported yet");
}

TEST(GammaFunctionsTest, IntegersAreRefused) {
  ExpectError(test::RunOp1("lgamma", {MakeTensor<int32_t>({1}, {1})}), Code::kInvalidArgument, "i32");
}

}  // namespace
}  // namespace tfg::gamma_functions_test
