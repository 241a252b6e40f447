#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::ExpectError;
using test::RunOp1;

TEST(ConstantTest, OutputsItsValueWithoutCopying) {
  Tensor v = test::MakeTensor<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto out = RunOp1("constant", {}, {{"value", v}, {"dtype", DType::kI32}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectTensorEq<int32_t>(*out, {1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  EXPECT_EQ(out->raw_data(), v.raw_data());
}

TEST(ConstantTest, ShapeIsTheValuesShape) {
  AttrMap attrs = {{"value", test::MakeStrings({"a", "b"}, TensorShape({2, 1}))}, {"dtype", DType::kString}};
  EXPECT_EQ(test::InferShapesString("constant", {}, {}, attrs), "[2, 1]");
}

TEST(ConstantTest, DtypeMustMatchTheValue) {
  auto out = RunOp1("constant", {}, {{"value", Tensor::Scalar<float>(1)}, {"dtype", DType::kF64}});
  ExpectError(out, Code::kInvalidArgument, "value has dtype f32 but dtype=f64 was given");
}

}  // namespace
}  // namespace tfg
