// Binary arithmetic ops: values recorded from NumPy 2.x (float64) or worked
// out by hand; broadcasting, integer semantics and error messages.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;
using test::RunKernel;
using test::RunOp1;

Tensor Ev(const std::string& op, Tensor a, Tensor b) { return test::Eval(op, {std::move(a), std::move(b)}); }

// Small integers are exact in every numeric dtype, so one table checks all.
class ArithAllTypes : public ::testing::TestWithParam<DType> {};

TEST_P(ArithAllTypes, BroadcastRowAgainstMatrix) {
  const DType dt = GetParam();
  Tensor a = MakeTensorOf(dt, {1, -2, 3, 4, 5, -6}, {2, 3});
  Tensor b = MakeTensorOf(dt, {2, 4, -1}, {3});
  ExpectTensorNear(Ev("add", a, b), {3, 2, 2, 6, 9, -7}, {2, 3}, 0);
  ExpectTensorNear(Ev("sub", a, b), {-1, -6, 4, 2, 1, -5}, {2, 3}, 0);
  ExpectTensorNear(Ev("mul", a, b), {2, -8, -3, 8, 20, 6}, {2, 3}, 0);
  ExpectTensorNear(Ev("maximum", a, b), {2, 4, 3, 4, 5, -1}, {2, 3}, 0);
  ExpectTensorNear(Ev("minimum", a, b), {1, -2, -1, 2, 4, -6}, {2, 3}, 0);
  ExpectTensorNear(Ev("pow", b, MakeTensorOf(dt, {3, 2, 5}, {3})), {8, 16, -1}, {3}, 0);
  EXPECT_EQ(Ev("add", a, b).dtype(), dt);
}

TEST_P(ArithAllTypes, ExactDivisionAndFloorSemantics) {
  const DType dt = GetParam();
  // Exact quotients agree between true and truncating division.
  Tensor a = MakeTensorOf(dt, {8, -6, 9, 0}, {4});
  Tensor b = MakeTensorOf(dt, {2, 3, -3, 5}, {4});
  ExpectTensorNear(Ev("div", a, b), {4, -2, -3, 0}, {4}, 0);
  // Python: 7 // 2 = 3, -7 // 2 = -4, 7 // -2 = -4, -7 // -2 = 3; % takes the divisor's sign.
  Tensor c = MakeTensorOf(dt, {7, -7, 7, -7}, {4});
  Tensor d = MakeTensorOf(dt, {2, 2, -2, -2}, {4});
  ExpectTensorNear(Ev("floordiv", c, d), {3, -4, -4, 3}, {4}, 0);
  ExpectTensorNear(Ev("mod", c, d), {1, 1, -1, -1}, {4}, 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ArithAllTypes,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// NumPy: a = [[1.5,-2,3],[4,5.5,-6]], b = [0.5,2,-4].
class FloatArith : public ::testing::TestWithParam<DType> {};

TEST_P(FloatArith, MatchesNumPy) {
  const DType dt = GetParam();
  const double tol = dt == DType::kF16 ? 2e-3 : dt == DType::kF32 ? 1e-6 : 1e-12;
  Tensor a = MakeTensorOf(dt, {1.5, -2, 3, 4, 5.5, -6}, {2, 3});
  Tensor b = MakeTensorOf(dt, {0.5, 2, -4}, {3});
  ExpectTensorNear(Ev("div", a, b), {3.0, -1.0, -0.75, 8.0, 2.75, 1.5}, {2, 3}, tol);
  ExpectTensorNear(Ev("floordiv", a, b), {3.0, -1.0, -1.0, 8.0, 2.0, 1.0}, {2, 3}, tol);
  ExpectTensorNear(Ev("mod", a, b), {0.0, 0.0, -1.0, 0.0, 1.5, -2.0}, {2, 3}, tol);
  ExpectTensorNear(Ev("pow", a, b),
                   {1.224744871391589, 4.0, 0.012345679012345678, 2.0, 30.25, 0.0007716049382716049}, {2, 3},
                   tol);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FloatArith, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(FloatArith, FloorDivAndModFollowPython) {
  // NumPy: fa // fb and np.mod(fa, fb); note 1.0 // 0.1 == 9.0.
  Tensor a = MakeTensor<double>({1.0, -7.5, 7.5, -1.0, 5.0, 0.0}, {6});
  Tensor b = MakeTensor<double>({0.1, 2.0, -2.0, 3.0, -3.0, -2.0}, {6});
  Tensor q = Ev("floordiv", a, b);
  ExpectTensorNear(q, {9.0, -4.0, -4.0, -1.0, -2.0, -0.0}, {6}, 0);
  EXPECT_TRUE(std::signbit(q.data<double>()[5]));
  ExpectTensorNear(Ev("mod", a, b), {0.09999999999999995, 0.5, -0.5, 2.0, -1.0, -0.0}, {6}, 1e-15);
}

TEST(FloatArith, DivisionByZeroIsIeee) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor r = Ev("div", MakeTensor<float>({1, -1, 0}, {3}), MakeTensor<float>({0, 0, 0}, {3}));
  ExpectTensorNear(r, {inf, -inf, NAN}, {3});
}

TEST(FloatArith, MaximumAndMinimumPropagateNaN) {
  Tensor a = MakeTensor<float>({NAN, 1, 2}, {3});
  Tensor b = MakeTensor<float>({1, NAN, 0}, {3});
  ExpectTensorNear(Ev("maximum", a, b), {NAN, NAN, 2}, {3});
  ExpectTensorNear(Ev("minimum", a, b), {NAN, NAN, 0}, {3});
}

TEST(IntArith, DivisionTruncatesTowardZero) {
  Tensor a = MakeTensor<int32_t>({7, -7, 7, -7, 0, 5}, {6});
  Tensor b = MakeTensor<int32_t>({2, 2, -2, -2, 3, -1}, {6});
  ExpectTensorEq<int32_t>(Ev("div", a, b), {3, -3, -3, 3, 0, -5}, {6});
  ExpectTensorEq<int32_t>(Ev("floordiv", a, b), {3, -4, -4, 3, 0, -5}, {6});
  ExpectTensorEq<int32_t>(Ev("mod", a, b), {1, 1, -1, -1, 0, 0}, {6});
}

TEST(IntArith, DivisionByZeroIsAnError) {
  for (const char* op : {"div", "floordiv", "mod"}) {
    auto r = RunOp1(op, {MakeTensor<int64_t>({1, 2}, {2}), MakeTensor<int64_t>({1, 0}, {2})});
    ExpectError(r, Code::kInvalidArgument, std::string(op) + ": integer division by zero");
  }
  // Also through a broadcast scalar divisor.
  ExpectError(RunOp1("div", {MakeTensor<int32_t>({1, 2}, {2}), Tensor::Scalar<int32_t>(0)}), Code::kInvalidArgument,
              "div: integer division by zero");
}

TEST(IntArith, OverflowWrapsInsteadOfTrapping) {
  const int32_t min = std::numeric_limits<int32_t>::min(), max = std::numeric_limits<int32_t>::max();
  Tensor m = MakeTensor<int32_t>({min, min}, {2});
  Tensor neg1 = MakeTensor<int32_t>({-1, -1}, {2});
  ExpectTensorEq<int32_t>(Ev("div", m, neg1), {min, min}, {2});
  ExpectTensorEq<int32_t>(Ev("floordiv", m, neg1), {min, min}, {2});
  ExpectTensorEq<int32_t>(Ev("mod", m, neg1), {0, 0}, {2});
  ExpectTensorEq<int32_t>(Ev("add", Tensor::Scalar<int32_t>(max), Tensor::Scalar<int32_t>(1)), {min}, {});
  ExpectTensorEq<int32_t>(Ev("mul", Tensor::Scalar<int32_t>(65536), Tensor::Scalar<int32_t>(65536)), {0}, {});
}

TEST(IntArith, PowIsExactAndRejectsNegativeExponents) {
  Tensor base = MakeTensor<int64_t>({2, -3, 5, 0, 1, 7, 3}, {7});
  Tensor exp = MakeTensor<int64_t>({10, 3, 0, 0, 5, 2, 39}, {7});
  // 3**39 = 4052555153018976267 fits in i64; float pow would round it.
  ExpectTensorEq<int64_t>(Ev("pow", base, exp), {1024, -27, 1, 1, 1, 49, 4052555153018976267LL}, {7});
  ExpectError(RunOp1("pow", {MakeTensor<int32_t>({2, 2}, {2}), MakeTensor<int32_t>({1, -1}, {2})}),
              Code::kInvalidArgument, "pow: integers to negative integer powers are not allowed (exponent -1)");
}

TEST(Broadcasting, ColumnAgainstRow) {
  Tensor r = Ev("add", MakeTensor<float>({1, 2}, {2, 1}), MakeTensor<float>({10, 20, 30}, {1, 3}));
  ExpectTensorNear(r, {11, 21, 31, 12, 22, 32}, {2, 3});
}

TEST(Broadcasting, ScalarAgainstMatrixBothWays) {
  Tensor m = MakeTensor<float>({1, 2, 3, 4}, {2, 2});
  ExpectTensorNear(Ev("sub", Tensor::Scalar<float>(10), m), {9, 8, 7, 6}, {2, 2});
  ExpectTensorNear(Ev("sub", m, Tensor::Scalar<float>(10)), {-9, -8, -7, -6}, {2, 2});
}

TEST(Broadcasting, ThreeDAgainstTwoD) {
  // NumPy: np.arange(12.).reshape(4,1,3) + [[100.],[200.]] -> shape (4, 2, 3).
  std::vector<double> p(12);
  for (int i = 0; i < 12; ++i) p[i] = i;
  Tensor r = Ev("add", MakeTensorOf(DType::kF64, p, {4, 1, 3}), MakeTensor<double>({100, 200}, {2, 1}));
  ExpectTensorNear(r, {100, 101, 102, 200, 201, 202, 103, 104, 105, 203, 204, 205,
                       106, 107, 108, 206, 207, 208, 109, 110, 111, 209, 210, 211},
                   {4, 2, 3});
}

TEST(Broadcasting, ScalarsAndEmptyTensors) {
  ExpectTensorEq<int64_t>(Ev("mul", Tensor::Scalar<int64_t>(6), Tensor::Scalar<int64_t>(7)), {42}, {});
  ExpectTensorEq<float>(Ev("add", MakeTensor<float>({}, {0, 3}), MakeTensor<float>({1, 2, 3}, {3})), {}, {0, 3});
  ExpectTensorEq<float>(Ev("add", MakeTensor<float>({}, {2, 0}), Tensor::Scalar<float>(1)), {}, {2, 0});
  // No divisor element is ever used, so no division-by-zero error either.
  ExpectTensorEq<int32_t>(Ev("div", MakeTensor<int32_t>({}, {0}), Tensor::Scalar<int32_t>(0)), {}, {0});
}

TEST(Broadcasting, LargeTensorsSplitAcrossThreads) {
  // [301, 257] - [301, 1] * [257]: the general path, sharded by ParallelFor.
  const int rows = 301, cols = 257;
  std::vector<float> a(rows * cols), col(rows), row(cols), expected(rows * cols);
  for (int i = 0; i < rows; ++i) col[i] = static_cast<float>(i % 7);
  for (int j = 0; j < cols; ++j) row[j] = static_cast<float>(j % 5);
  for (int i = 0; i < rows * cols; ++i) a[i] = static_cast<float>(i % 11);
  Tensor prod = Ev("mul", MakeTensor<float>(col, {rows, 1}), MakeTensor<float>(row, {cols}));
  Tensor r = Ev("sub", MakeTensor<float>(a, {rows, cols}), prod);
  std::vector<double> want(rows * cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) want[i * cols + j] = (i * cols + j) % 11 - (i % 7) * (j % 5);
  }
  ExpectTensorNear(r, want, {rows, cols}, 0);
}

TEST(Half, ComputesInFloatAndRoundsOnce) {
  // 2049 is not representable in f16 (spacing 2 above 2048): 2048 + 1 rounds to even, 2048.
  Tensor r = Ev("add", test::MakeHalf({2048, 0.1f}, {2}), test::MakeHalf({1, 0.2f}, {2}));
  ASSERT_EQ(r.dtype(), DType::kF16);
  EXPECT_EQ(static_cast<float>(r.data<half>()[0]), 2048.0f);
  // NumPy: float(np.float16(np.float32(np.float16(.1)) + np.float32(np.float16(.2)))) == 0.2998046875.
  EXPECT_EQ(static_cast<float>(r.data<half>()[1]), 0.2998046875f);
}

TEST(ShapeFn, BroadcastErrorsNameOpAndShapes) {
  EXPECT_EQ(test::InferShapesString("add", {PartialShape({2, 3}), PartialShape({4})}, {DType::kF32, DType::kF32}),
            "add: shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)");
  EXPECT_EQ(test::InferShapesString("mod", {PartialShape({-1, 3}), PartialShape({3})}, {DType::kI32, DType::kI32}),
            "[?, 3]");
  EXPECT_EQ(test::InferShapesString("mul", {PartialShape({-1, 1}), PartialShape({1, 5})}, {DType::kF32, DType::kF32}),
            "[?, 5]");
  EXPECT_EQ(test::InferShapesString("sub", {PartialShape(), PartialShape({3})}, {DType::kF32, DType::kF32}),
            "<unknown>");
  // The kernel makes the same check when shapes were unknown at build time.
  ExpectError(RunKernel("maximum", {MakeTensor<float>({1, 2}, {2}), MakeTensor<float>({1, 2, 3}, {3})}),
              Code::kInvalidArgument, "maximum: shapes [2] and [3] cannot be broadcast together");
}

TEST(Signature, RejectsUnsupportedDtypes) {
  EXPECT_FALSE(RunOp1("add", {test::MakeStrings({"a"}, {1}), test::MakeStrings({"b"}, {1})}).ok());
  EXPECT_FALSE(RunOp1("add", {MakeTensor<bool>({true}, {1}), MakeTensor<bool>({true}, {1})}).ok());
  EXPECT_FALSE(RunOp1("add", {MakeTensor<float>({1}, {1}), MakeTensor<int32_t>({1}, {1})}).ok());
}

}  // namespace
}  // namespace tfg
