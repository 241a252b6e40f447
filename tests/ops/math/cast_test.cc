// cast(x, dtype) between every pair of numeric and bool dtypes.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "ops/core/op_registry.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

Tensor Cast(Tensor x, DType to) { return Eval("cast", {std::move(x)}, {{"DstT", to}}); }

const DType kCastTypes[] = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};

TEST(Cast, EveryPairOnSmallIntegers) {
  // 0, 1, 3 and 100 survive every conversion except to bool, which is != 0.
  for (DType from : kCastTypes) {
    for (DType to : kCastTypes) {
      const bool bool_in = from == DType::kBool;
      Tensor x = MakeTensorOf(from, bool_in ? std::vector<double>{0, 1, 1, 0} : std::vector<double>{0, 1, 3, 100},
                              {2, 2});
      Tensor y = Cast(x, to);
      ASSERT_EQ(y.dtype(), to) << DTypeName(from) << "->" << DTypeName(to);
      std::vector<double> want = bool_in ? std::vector<double>{0, 1, 1, 0} : std::vector<double>{0, 1, 3, 100};
      if (to == DType::kBool) want = {0, 1, 1, bool_in ? 0.0 : 1.0};
      SCOPED_TRACE(std::string(DTypeName(from)) + "->" + std::string(DTypeName(to)));
      ExpectTensorNear(y, want, {2, 2}, 0);
    }
  }
}

TEST(Cast, FloatToIntTruncatesTowardZero) {
  Tensor x = MakeTensor<float>({2.9f, -2.9f, 0.5f, -0.5f, 7.0f}, {5});
  ExpectTensorEq<int32_t>(Cast(x, DType::kI32), {2, -2, 0, 0, 7}, {5});
  ExpectTensorEq<int64_t>(Cast(MakeTensor<double>({1e12 + 0.75, -3.99}, {2}), DType::kI64), {1000000000000LL, -3}, {2});
}

TEST(Cast, OutOfRangeSaturatesAndNaNIsZero) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = MakeTensor<double>({1e10, -1e10, NAN, inf, -inf}, {5});
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  ExpectTensorEq<int32_t>(Cast(x, DType::kI32), {max, min, 0, max, min}, {5});
}

TEST(Cast, ToBoolIsNonZero) {
  ExpectTensorEq<bool>(Cast(MakeTensor<float>({0.0f, -0.0f, 0.25f, NAN}, {4}), DType::kBool), {false, false, true, true},
                       {4});
  ExpectTensorEq<bool>(Cast(MakeTensor<int64_t>({0, -5}, {2}), DType::kBool), {false, true}, {2});
}

TEST(Cast, HalfRoundTrip) {
  // f16 keeps 11 significant bits: 1/3 -> 0.333251953125, 65504 is the largest finite value, 1e5 overflows.
  Tensor h = Cast(MakeTensor<float>({1.0f / 3, 65504.0f, 1e5f, -2.5f}, {4}), DType::kF16);
  ASSERT_EQ(h.dtype(), DType::kF16);
  ExpectTensorNear(Cast(h, DType::kF32), {0.333251953125, 65504.0, std::numeric_limits<double>::infinity(), -2.5}, {4}, 0);
  ExpectTensorEq<int32_t>(Cast(h, DType::kI32), {0, 65504, std::numeric_limits<int32_t>::max(), -2}, {4});
}

TEST(Cast, SameTypeSharesTheBuffer) {
  Tensor x = MakeTensor<float>({1, 2}, {2});
  Tensor y = Cast(x, DType::kF32);
  EXPECT_EQ(y.raw_data(), x.raw_data());
}

TEST(Cast, ScalarEmptyAndDtypeIsPositional) {
  ExpectTensorEq<double>(Cast(Tensor::Scalar<int32_t>(-4), DType::kF64), {-4}, {});
  ExpectTensorEq<int64_t>(Cast(MakeTensor<float>({}, {3, 0}), DType::kI64), {}, {3, 0});
  // The script call cast(x, f64) binds the target dtype as the second parameter.
  const OpDef* def = OpRegistry::Global().Find("cast");
  ASSERT_NE(def, nullptr);
  ASSERT_EQ(def->params.size(), 2u);
  EXPECT_TRUE(def->params[0].is_input);
  EXPECT_FALSE(def->params[1].is_input);
  EXPECT_EQ(def->attrs[def->params[1].index].name, "DstT");
  EXPECT_FALSE(test::RunOp1("cast", {test::MakeStrings({"1"}, {1})}, {{"DstT", DType::kF32}}).ok());
}

}  // namespace
}  // namespace tfg
