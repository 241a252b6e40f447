// Unary ops: float values recorded from NumPy (float64), integer ones by hand.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kX = {-2.5, -0.5, 0.0, 0.5, 1.0, 3.0};

class FloatUnary : public ::testing::TestWithParam<DType> {
 protected:
  double tol() const { return GetParam() == DType::kF16 ? 2e-3 : GetParam() == DType::kF32 ? 1e-6 : 1e-14; }
  Tensor X() const { return MakeTensorOf(GetParam(), kX, {2, 3}); }
};

TEST_P(FloatUnary, Transcendentals) {
  ExpectTensorNear(Eval("exp", {X()}),
                   {0.0820849986238988, 0.6065306597126334, 1.0, 1.6487212707001282, 2.718281828459045,
                    20.085536923187668},
                   {2, 3}, tol());
  ExpectTensorNear(Eval("tanh", {X()}),
                   {-0.9866142981514303, -0.46211715726000974, 0.0, 0.46211715726000974, 0.7615941559557649,
                    0.9950547536867305},
                   {2, 3}, tol());
  ExpectTensorNear(Eval("sin", {X()}),
                   {-0.5984721441039565, -0.479425538604203, 0.0, 0.479425538604203, 0.8414709848078965,
                    0.1411200080598672},
                   {2, 3}, tol());
  ExpectTensorNear(Eval("cos", {X()}),
                   {-0.8011436155469337, 0.8775825618903728, 1.0, 0.8775825618903728, 0.5403023058681398,
                    -0.9899924966004454},
                   {2, 3}, tol());
  Tensor y = MakeTensorOf(GetParam(), {0.25, 1.0, 2.0, 10.0}, {4});
  ExpectTensorNear(Eval("log", {y}), {-1.3862943611198906, 0.0, 0.6931471805599453, 2.302585092994046}, {4}, tol());
  ExpectTensorNear(Eval("sqrt", {y}), {0.5, 1.0, 1.4142135623730951, 3.1622776601683795}, {4}, tol());
  ExpectTensorNear(Eval("rsqrt", {y}), {2.0, 1.0, 0.7071067811865475, 0.31622776601683794}, {4}, tol());
}

TEST_P(FloatUnary, PiecewiseOps) {
  ExpectTensorNear(Eval("neg", {X()}), {2.5, 0.5, 0.0, -0.5, -1.0, -3.0}, {2, 3}, 0);
  ExpectTensorNear(Eval("abs", {X()}), {2.5, 0.5, 0.0, 0.5, 1.0, 3.0}, {2, 3}, 0);
  ExpectTensorNear(Eval("sign", {X()}), {-1, -1, 0, 1, 1, 1}, {2, 3}, 0);
  ExpectTensorNear(Eval("square", {X()}), {6.25, 0.25, 0.0, 0.25, 1.0, 9.0}, {2, 3}, 0);
  ExpectTensorNear(Eval("relu", {X()}), {0, 0, 0, 0.5, 1.0, 3.0}, {2, 3}, 0);
  EXPECT_EQ(Eval("relu", {X()}).dtype(), GetParam());
}

// floor, ceil and round (NumPy's rint: ties to even) are exact in every
// float dtype.
TEST_P(FloatUnary, Rounding) {
  ExpectTensorNear(Eval("floor", {X()}), {-3, -1, 0, 0, 1, 3}, {2, 3}, 0);
  ExpectTensorNear(Eval("ceil", {X()}), {-2, -0.0, 0, 1, 1, 3}, {2, 3}, 0);
  Tensor ties = MakeTensorOf(GetParam(), {0.5, 1.5, 2.5, -1.5, -2.5, 2.25, -0.75}, {7});
  ExpectTensorNear(Eval("round", {ties}), {0, 2, 2, -2, -2, 2, -1}, {7}, 0);
  EXPECT_EQ(Eval("round", {ties}).dtype(), GetParam());
}

// Values from NumPy (float64): log1p and expm1 keep their precision near 0.
TEST_P(FloatUnary, Log1pExpm1Reciprocal) {
  Tensor y = MakeTensorOf(GetParam(), {-0.5, 1e-10, 0.25, 3.0}, {4});
  const double rel = GetParam() == DType::kF16 ? 1e-2 : tol();
  ExpectTensorNear(Eval("log1p", {y}), {-0.6931471805599453, 9.999999999500001e-11, 0.22314355131420976,
                                         1.3862943611198906},
                   {4}, rel);
  ExpectTensorNear(Eval("expm1", {y}), {-0.3934693402873666, 1.00000000005e-10, 0.2840254166877415,
                                         19.085536923187668},
                   {4}, rel);
  Tensor z = MakeTensorOf(GetParam(), {-0.5, 0.25, 4.0}, {3});
  ExpectTensorNear(Eval("reciprocal", {z}), {-2.0, 4.0, 0.25}, {3}, 0);
}

TEST_P(FloatUnary, SigmoidIsStableForLargeMagnitudes) {
  Tensor s = MakeTensorOf(GetParam(), {-100, -20, -1, 0, 1, 20, 100, 800, -800}, {9});
  const double tiny = GetParam() == DType::kF16 ? 0 : GetParam() == DType::kF32 ? 0 : 3.720075976020836e-44;
  // f16/f32 cannot hold 3.7e-44 as a normal number; the f32 subnormal is within tol of 0.
  Tensor r = Eval("sigmoid", {s});
  ExpectTensorNear(r, {tiny, 2.0611536181902033e-09, 0.2689414213699951, 0.5, 0.7310585786300049,
                       0.9999999979388463, 1.0, 1.0, 0.0},
                   {9}, tol());
  for (double v : test::ToDoubles(r)) EXPECT_FALSE(std::isnan(v));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FloatUnary, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(FloatUnary, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  ExpectTensorNear(Eval("log", {MakeTensor<float>({0, -1}, {2})}), {-inf, NAN}, {2});
  ExpectTensorNear(Eval("sqrt", {MakeTensor<float>({-1}, {1})}), {NAN}, {1});
  ExpectTensorNear(Eval("rsqrt", {MakeTensor<float>({0}, {1})}), {inf}, {1});
  ExpectTensorNear(Eval("sign", {MakeTensor<double>({NAN, -0.0}, {2})}), {NAN, 0}, {2});
  Tensor a = Eval("abs", {MakeTensor<double>({-0.0}, {1})});
  EXPECT_FALSE(std::signbit(a.data<double>()[0]));
  // TensorFlow: tf.nn.relu([nan, -0.0, -inf, inf]) is [nan, -0.0, 0, inf].
  Tensor r = Eval("relu", {MakeTensor<double>({NAN, -0.0, -INFINITY, INFINITY}, {4})});
  ExpectTensorNear(r, {NAN, 0, 0, INFINITY}, {4});
  EXPECT_TRUE(std::signbit(r.data<double>()[1]));
}

class IntUnary : public ::testing::TestWithParam<DType> {};

TEST_P(IntUnary, ArithmeticOnIntegers) {
  Tensor x = MakeTensorOf(GetParam(), {-7, -1, 0, 2, 9}, {5});
  ExpectTensorNear(Eval("neg", {x}), {7, 1, 0, -2, -9}, {5}, 0);
  ExpectTensorNear(Eval("abs", {x}), {7, 1, 0, 2, 9}, {5}, 0);
  ExpectTensorNear(Eval("sign", {x}), {-1, -1, 0, 1, 1}, {5}, 0);
  ExpectTensorNear(Eval("square", {x}), {49, 1, 0, 4, 81}, {5}, 0);
  ExpectTensorNear(Eval("relu", {x}), {0, 0, 0, 2, 9}, {5}, 0);
  EXPECT_EQ(Eval("square", {x}).dtype(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, IntUnary, ::testing::Values(DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(IntUnary, MinimumValueWrapsLikeTwosComplement) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  ExpectTensorEq<int32_t>(Eval("neg", {Tensor::Scalar<int32_t>(min)}), {min}, {});
  ExpectTensorEq<int32_t>(Eval("abs", {Tensor::Scalar<int32_t>(min)}), {min}, {});
}

TEST(IntUnary, FloatOnlyOpsRejectIntegersAtBuildTime) {
  for (const char* op : {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "sin", "cos"}) {
    auto r = test::InferShapes(op, {PartialShape({2})}, {DType::kI32});
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_NE(r.status().message().find("i32"), std::string::npos) << r.status().message();
  }
}

TEST(Unary, ScalarsEmptyAndLargeTensors) {
  ExpectTensorNear(Eval("exp", {Tensor::Scalar<float>(0)}), {1}, {});
  ExpectTensorEq<float>(Eval("tanh", {MakeTensor<float>({}, {0, 4})}), {}, {0, 4});
  // Large enough to be split over threads: every element checked.
  const int n = 100003;
  std::vector<double> in(n), want(n);
  for (int i = 0; i < n; ++i) {
    in[i] = (i % 201) - 100;
    want[i] = std::fabs(in[i]);
  }
  ExpectTensorNear(Eval("abs", {MakeTensorOf(DType::kF64, in, {n})}), want, {n}, 0);
  EXPECT_EQ(test::InferShapesString("sqrt", {PartialShape({-1, 3})}, {DType::kF32}), "[?, 3]");
}

TEST(LogicalNot, NegatesBools) {
  ExpectTensorEq<bool>(Eval("logical_not", {MakeTensor<bool>({true, false, true}, {3})}), {false, true, false}, {3});
  EXPECT_FALSE(test::RunOp1("logical_not", {MakeTensor<float>({1}, {1})}).ok());
}

}  // namespace
}  // namespace tfg
