// erf, erfc, asin, acos, atan, sinh, cosh, tan, is_finite, is_inf. Values
// recorded from TensorFlow 2.21 (tf.math.*, float64 unless the test says
// otherwise; gradients from tf.GradientTape).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::cwise_unary_special_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<double> kX = {-0.9, -0.3, 0.0, 0.25, 0.8};

struct Recorded {
  const char* op;
  std::vector<double> y;   // tf.math.<op>(kX) in float64
  std::vector<double> dy;  // its gradient, d sum(y) / dx
};

const Recorded kRecorded[] = {
    {"erf",
     {-0.7969082124228323, -0.3286267594591274, 0.0, 0.2763263901682369, 0.7421009647076605},
     {0.5019685742403627, 1.031260909618963, 1.1283791670955126, 1.0600141293761143, 0.5949857862574689}},
    {"erfc",
     {1.7969082124228324, 1.3286267594591274, 1.0, 0.7236736098317631, 0.2578990352923395},
     {-0.5019685742403627, -1.031260909618963, -1.1283791670955126, -1.0600141293761143, -0.5949857862574689}},
    {"asin",
     {-1.1197695149986342, -0.3046926540153975, 0.0, 0.25268025514207865, 0.9272952180016123},
     {2.294157338705618, 1.0482848367219182, 1.0, 1.0327955589886444, 1.666666666666667}},
    {"acos",
     {2.6905658417935308, 1.8754889808102941, 1.5707963267948966, 1.318116071652818, 0.6435011087932843},
     {-2.294157338705618, -1.0482848367219182, -1.0, -1.0327955589886444, -1.666666666666667}},
    {"atan",
     {-0.7328151017865067, -0.2914567944778671, 0.0, 0.24497866312686414, 0.6747409422235527},
     {0.5524861878453039, 0.9174311926605504, 1.0, 0.9411764705882353, 0.6097560975609756}},
    {"sinh",
     {-1.0265167257081753, -0.3045202934471426, 0.0, 0.2526123168081683, 0.888105982187623},
     {1.4330863854487745, 1.0453385141288605, 1.0, 1.0314130998795732, 1.3374349463048447}},
    {"cosh",
     {1.4330863854487745, 1.0453385141288605, 1.0, 1.0314130998795732, 1.3374349463048447},
     {-1.0265167257081753, -0.3045202934471426, 0.0, 0.2526123168081683, 0.888105982187623}},
    {"tan",
     {-1.2601582175503392, -0.30933624960962325, 0.0, 0.25534192122103627, 1.0296385570503641},
     {2.587998733259649, 1.095688915322547, 1.0, 1.06519949673285, 2.060155558164756}},
};

class SpecialUnary : public ::testing::TestWithParam<DType> {
 protected:
  // f16 rounds the input and the output (~1e-3 relative); f32 its last bits.
  double tol() const { return GetParam() == DType::kF16 ? 4e-3 : GetParam() == DType::kF32 ? 1e-6 : 1e-15; }
};

TEST_P(SpecialUnary, MatchTensorFlow) {
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    const Tensor y = Eval(r.op, {MakeTensorOf(GetParam(), kX, {5})});
    EXPECT_EQ(y.dtype(), GetParam());
    ExpectTensorNear(y, r.y, {5}, tol());
  }
}

TEST_P(SpecialUnary, EmptyAndScalar) {
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    ExpectTensorNear(Eval(r.op, {MakeTensorOf(GetParam(), {}, {0, 3})}), {}, {0, 3});
    ExpectTensorNear(Eval(r.op, {MakeTensorOf(GetParam(), {0.25}, {})}), {r.y[3]}, {}, tol());
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SpecialUnary, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// tf.math.* in float32 gives exactly these (float32 rounding of float64
// results but for the last bit).
TEST(SpecialUnaryTest, Float32AgreesWithTensorFlowFloat32) {
  const Tensor x = MakeTensorOf(DType::kF32, kX, {5});
  ExpectTensorNear(Eval("erf", {x}), {-0.7969081997871399, -0.3286267817020416, 0.0, 0.27632641792297363,
                                      0.7421009540557861}, {5}, 2e-7);
  ExpectTensorNear(Eval("tan", {x}), {-1.2601581811904907, -0.30933627486228943, 0.0, 0.25534191727638245,
                                      1.0296385288238525}, {5}, 2e-7);
}

// Infinities and far tails, as TensorFlow's float64 except erf(+-inf): TF
// gives NaN there in float64 (its float32 kernel gives +-1, the true limit,
// which tfg gives in every dtype).
TEST(SpecialUnaryTest, Limits) {
  const Tensor edge = MakeTensor<double>({kInf, -kInf, 20.0, -20.0}, {4});
  ExpectTensorNear(Eval("erf", {edge}), {1.0, -1.0, 1.0, -1.0}, {4}, 0);
  ExpectTensorNear(Eval("erfc", {edge}), {0.0, 2.0, 5.3958656116079026e-176, 2.0}, {4}, 1e-190);
  ExpectTensorNear(Eval("atan", {edge}),
                   {1.5707963267948966, -1.5707963267948966, 1.5208379310729538, -1.5208379310729538}, {4}, 1e-15);
  ExpectTensorNear(Eval("sinh", {edge}), {kInf, -kInf, 242582597.70489514, -242582597.70489514}, {4}, 1e-15);
  ExpectTensorNear(Eval("cosh", {edge}), {kInf, kInf, 242582597.70489514, 242582597.70489514}, {4}, 1e-15);
  ExpectTensorNear(Eval("asin", {MakeTensor<double>({2.0, -1.0, 1.0}, {3})}),
                   {kNaN, -1.5707963267948966, 1.5707963267948966}, {3}, 1e-15);
  ExpectTensorNear(Eval("acos", {MakeTensor<double>({-2.0, -1.0, 1.0}, {3})}), {kNaN, M_PI, 0.0}, {3}, 1e-15);
  ExpectTensorNear(Eval("tan", {MakeTensor<double>({kNaN, kInf}, {2})}), {kNaN, kNaN}, {2});
}

// tf.math.is_finite / is_inf of [inf, -inf, nan, 3, -0].
TEST(SpecialUnaryTest, IsFiniteAndIsInf) {
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor x = MakeTensorOf(dtype, {kInf, -kInf, kNaN, 3.0, -0.0}, {5});
    ExpectTensorEq<bool>(Eval("is_finite", {x}), {false, false, false, true, true}, {5});
    ExpectTensorEq<bool>(Eval("is_inf", {x}), {true, true, false, false, false}, {5});
  }
  ExpectTensorEq<bool>(Eval("is_inf", {MakeTensor<float>({}, {2, 0})}), {}, {2, 0});
}

TEST(SpecialUnaryTest, IntegersAreRefused) {
  for (const char* op : {"erf", "atan", "is_finite", "is_inf"}) {
    SCOPED_TRACE(op);
    ExpectError(test::RunOp1(op, {MakeTensor<int32_t>({1, 2}, {2})}), Code::kInvalidArgument, "i32");
  }
}

TEST(SpecialUnaryTest, GradientsMatchTensorFlow) {
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    auto dx =
        test::SymbolicGradients(r.op, {MakeTensor<double>(kX, {5})}, {}, MakeTensor<double>({1, 1, 1, 1, 1}, {5}));
    ASSERT_TRUE(dx.ok()) << dx.status().ToString();
    ExpectTensorNear((*dx)[0], r.dy, {5}, 1e-14);
  }
}

TEST(SpecialUnaryTest, GradientsMatchFiniteDifferences) {
  const Tensor x = test::RandomF64({2, 3}, -0.9, 0.9);
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    EXPECT_GRADIENT_OK(r.op, {x});
  }
}

}  // namespace
}  // namespace tfg::cwise_unary_special_test
