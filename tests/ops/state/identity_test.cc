#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

TEST(IdentityTest, ForwardsTheSameBuffer) {
  Tensor x = test::MakeTensor<float>({1.5f, -2}, TensorShape({2}));
  auto y = test::RunOp1("identity", {x});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  test::ExpectTensorEq<float>(*y, {1.5f, -2}, TensorShape({2}));
  EXPECT_EQ(y->raw_data(), x.raw_data());
}

TEST(IdentityTest, AnyDtypeAndShape) {
  auto y = test::RunOp1("identity", {test::MakeStrings({"p", "q"}, TensorShape({1, 2}))});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->data<std::string>()[1], "q");
  EXPECT_EQ(test::InferShapesString("identity", {PartialShape({-1, 3})}, {DType::kF64}), "[?, 3]");
}

TEST(StopGradientTest, ForwardsLikeIdentity) {
  Tensor x = test::MakeTensor<float>({1.5f, -2}, TensorShape({2}));
  auto y = test::RunOp1("stop_gradient", {x});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  test::ExpectTensorEq<float>(*y, {1.5f, -2}, TensorShape({2}));
  EXPECT_EQ(test::InferShapesString("stop_gradient", {PartialShape({-1, 3})}, {DType::kF64}), "[?, 3]");
}

}  // namespace
}  // namespace tfg
