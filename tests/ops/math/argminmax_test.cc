// argmax/argmin: indices recorded from NumPy on a [3, 2, 4] input.
#include <cmath>

#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kX = {1, -2, 3, 0.5, 4, 5, -6, 2, 7, 8, 9, -1, -10, 11, 12, 3, 0, 1, -1, 2, 2, 2, 2, 2};

class ArgOps : public ::testing::TestWithParam<DType> {};

TEST_P(ArgOps, AlongEachAxis) {
  const DType dt = GetParam();
  // Integer inputs see the values truncated (0.5 -> 0), which changes no index below.
  Tensor x = MakeTensorOf(dt, kX, {3, 2, 4});
  ExpectTensorEq<int64_t>(Eval("argmax", {x}), {1, 1, 1, 2, 0, 1, 1, 1}, {2, 4});
  ExpectTensorEq<int64_t>(Eval("argmax", {x}, {{"axis", int64_t{1}}}), {1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0}, {3, 4});
  ExpectTensorEq<int64_t>(Eval("argmax", {x}, {{"axis", int64_t{-1}}}), {2, 1, 2, 2, 3, 0}, {3, 2});
  ExpectTensorEq<int64_t>(Eval("argmin", {x}, {{"axis", int64_t{0}}}), {2, 0, 2, 1, 1, 2, 0, 0}, {2, 4});
  ExpectTensorEq<int64_t>(Eval("argmin", {x}, {{"axis", int64_t{2}}}), {1, 2, 3, 0, 2, 0}, {3, 2});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ArgOps,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(ArgOps, OutputTypeAndTiesAndNaN) {
  Tensor x = MakeTensor<float>({3, 1, 3, NAN, 5, NAN}, {2, 3});
  ExpectTensorEq<int32_t>(Eval("argmax", {x}, {{"axis", int64_t{1}}, {"output_type", DType::kI32}}), {0, 0}, {2});
  // First of equal values; the first NaN wins (NumPy).
  ExpectTensorEq<int64_t>(Eval("argmin", {x}, {{"axis", int64_t{1}}}), {1, 0}, {2});
  ExpectTensorEq<int64_t>(Eval("argmax", {MakeTensor<int32_t>({4, 9, 9, 1}, {4})}), {1}, {});
}

TEST(ArgOps, EmptyAndErrors) {
  ExpectTensorEq<int64_t>(Eval("argmax", {MakeTensor<float>({}, {3, 0})}, {{"axis", int64_t{0}}}), {}, {0});
  ExpectError(test::RunOp1("argmax", {MakeTensor<float>({}, {0, 3})}), Code::kInvalidArgument,
              "argmax: axis 0 of input shape [0, 3] is empty");
  EXPECT_EQ(test::InferShapesString("argmin", {PartialShape({-1, 5})}, {DType::kF32}, {{"axis", int64_t{1}}}), "[?]");
  EXPECT_EQ(test::InferShapesString("argmin", {PartialShape({-1, 5})}, {DType::kF32}, {{"axis", int64_t{2}}}),
            "argmin: axis 2 is out of range for rank 2 (input shape [?, 5])");
  EXPECT_EQ(test::InferShapesString("argmax", {PartialShape({})}, {DType::kF32}),
            "argmax: input must have rank >= 1, got a scalar");
  EXPECT_EQ(test::InferShapesString("argmax", {PartialShape()}, {DType::kF32}), "<unknown>");
  EXPECT_FALSE(test::RunOp1("argmax", {MakeTensor<float>({1}, {1})}, {{"output_type", DType::kF32}}).ok());
}

}  // namespace
}  // namespace tfg
