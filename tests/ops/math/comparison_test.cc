// Comparisons and logical ops, checked by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "ops/core/op_registry.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectTensorEq;
using test::MakeTensor;
using test::MakeTensorOf;

class Compare : public ::testing::TestWithParam<DType> {};

TEST_P(Compare, BroadcastsAndReturnsBool) {
  const DType dt = GetParam();
  Tensor a = MakeTensorOf(dt, {1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = MakeTensorOf(dt, {2, 2, 5}, {3});
  ExpectTensorEq<bool>(Eval("equal", {a, b}), {false, true, false, false, false, false}, {2, 3});
  ExpectTensorEq<bool>(Eval("not_equal", {a, b}), {true, false, true, true, true, true}, {2, 3});
  ExpectTensorEq<bool>(Eval("less", {a, b}), {true, false, true, false, false, false}, {2, 3});
  ExpectTensorEq<bool>(Eval("less_equal", {a, b}), {true, true, true, false, false, false}, {2, 3});
  ExpectTensorEq<bool>(Eval("greater", {a, b}), {false, false, false, true, true, true}, {2, 3});
  ExpectTensorEq<bool>(Eval("greater_equal", {a, b}), {false, true, false, true, true, true}, {2, 3});
  // Scalar on the left.
  ExpectTensorEq<bool>(Eval("less", {MakeTensorOf(dt, {3}, {}), a}), {false, false, false, true, true, true}, {2, 3});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Compare,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(Compare, NaNIsUnorderedAndUnequal) {
  Tensor a = MakeTensor<float>({NAN, NAN}, {2});
  Tensor b = MakeTensor<float>({NAN, 1}, {2});
  ExpectTensorEq<bool>(Eval("equal", {a, b}), {false, false}, {2});
  ExpectTensorEq<bool>(Eval("not_equal", {a, b}), {true, true}, {2});
  ExpectTensorEq<bool>(Eval("less_equal", {a, b}), {false, false}, {2});
  ExpectTensorEq<bool>(Eval("greater_equal", {a, b}), {false, false}, {2});
}

TEST(Compare, EqualityOnBoolsAndStrings) {
  ExpectTensorEq<bool>(Eval("equal", {MakeTensor<bool>({true, false}, {2}), Tensor::Scalar<bool>(true)}),
                       {true, false}, {2});
  Tensor s = test::MakeStrings({"cat", "dog", ""}, {3});
  ExpectTensorEq<bool>(Eval("equal", {s, test::MakeStrings({"dog"}, {})}), {false, true, false}, {3});
  ExpectTensorEq<bool>(Eval("not_equal", {s, test::MakeStrings({"cat", "cow", ""}, {3})}), {false, true, false},
                       {3});
  // Ordering is not defined on strings or bools.
  EXPECT_FALSE(test::RunOp1("less", {s, s}).ok());
  EXPECT_FALSE(test::RunOp1("greater", {MakeTensor<bool>({true}, {1}), MakeTensor<bool>({true}, {1})}).ok());
}

TEST(Logical, AndOrBroadcast) {
  Tensor a = MakeTensor<bool>({true, true, false, false}, {2, 2});
  Tensor col = MakeTensor<bool>({true, false}, {2, 1});
  ExpectTensorEq<bool>(Eval("logical_and", {a, col}), {true, true, false, false}, {2, 2});
  ExpectTensorEq<bool>(Eval("logical_or", {a, col}), {true, true, false, false}, {2, 2});
  Tensor row = MakeTensor<bool>({true, false}, {2});
  ExpectTensorEq<bool>(Eval("logical_and", {a, row}), {true, false, false, false}, {2, 2});
  ExpectTensorEq<bool>(Eval("logical_or", {a, row}), {true, true, true, false}, {2, 2});
  EXPECT_FALSE(test::RunOp1("logical_and", {MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {1})}).ok());
}

TEST(Compare, ShapeFunctionAndGradientMarks) {
  EXPECT_EQ(test::InferShapesString("greater", {PartialShape({-1, 1}), PartialShape({4})}, {DType::kF32, DType::kF32}),
            "[?, 4]");
  EXPECT_EQ(test::InferShapesString("logical_or", {PartialShape({3}), PartialShape({2})}, {DType::kBool, DType::kBool}),
            "logical_or: shapes [3] and [2] cannot be broadcast together (dimension 0: 3 vs 2)");
  for (const char* op : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
                         "logical_or", "logical_not"}) {
    const OpDef* def = OpRegistry::Global().Find(op);
    ASSERT_NE(def, nullptr) << op;
    EXPECT_FALSE(def->no_gradient_reason.empty()) << op;
  }
}

}  // namespace
}  // namespace tfg
