#include <gtest/gtest.h>

#include "ops/core/resource_mgr.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg {
namespace {

TEST(AssignTest, SetsTheVariableAndOutputsTheNewValue) {
  test::StateGraph g;
  Node* set = g.Update("assign", "W", Tensor::Vector<double>({0.5, -1}));
  auto r = g.Run({set->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<double>((*r)[0], {0.5, -1}, TensorShape({2}));
  auto var = g.session().resources()->Lookup<Variable>("", "W");
  ASSERT_NE(var, nullptr);
  test::ExpectTensorEq<double>(var->value, {0.5, -1}, TensorShape({2}));
}

TEST(AssignTest, DoesNotAliasTheConstantItCopiesFrom) {
  test::StateGraph g;
  Tensor value = Tensor::Vector<float>({1, 2});
  Node* set = g.Update("assign", "W", value);
  Node* inc = g.Update("assign_add", "W", Tensor::Vector<float>({10, 10}));
  ASSERT_TRUE(g.Run({}, {set}).ok());
  ASSERT_TRUE(g.Run({}, {inc}).ok());
  test::ExpectTensorEq<float>(value, {1, 2}, TensorShape({2}));  // the constant is untouched
  auto var = g.session().resources()->Lookup<Variable>("", "W");
  test::ExpectTensorEq<float>(var->value, {11, 12}, TensorShape({2}));
}

TEST(AssignTest, ShapeMismatchNamesBothShapes) {
  test::StateGraph g;
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "W", Tensor::Vector<float>({1, 2}))}).ok());
  auto r = g.Run({}, {g.Update("assign", "W", Tensor::Vector<float>({1, 2, 3}))});
  test::ExpectError(r, Code::kInvalidArgument, "value of shape [3] does not match variable 'W' of shape [2]");
}

TEST(AssignTest, ValidateShapeFalseAllowsANewShape) {
  test::StateGraph g;
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "W", Tensor::Vector<float>({1, 2}))}).ok());
  Node* grow = g.Update("assign", "W", Tensor::Vector<float>({1, 2, 3}), {{"validate_shape", false}});
  ASSERT_TRUE(g.Run({}, {grow}).ok());
  auto var = g.session().resources()->Lookup<Variable>("", "W");
  EXPECT_EQ(var->value.shape(), TensorShape({3}));
}

TEST(AssignTest, DeclaredShapeIsCheckedAtBuildTime) {
  AttrMap attrs = {{"shared_name", std::string("W")}, {"shape", PartialShape({2, 2})}};
  EXPECT_EQ(test::InferShapesString("assign", {PartialShape({2, 2})}, {DType::kF32}, attrs), "[2, 2]");
  EXPECT_NE(test::InferShapesString("assign", {PartialShape({3})}, {DType::kF32}, attrs)
                .find("value of shape [3] does not match variable 'W' of shape [2, 2]"),
            std::string::npos);
  attrs["dtype"] = DType::kF64;
  EXPECT_NE(test::InferShapesString("assign", {PartialShape({2, 2})}, {DType::kF32}, attrs).find("dtype"),
            std::string::npos);
}

TEST(AssignTest, DtypeChangeIsRefused) {
  test::StateGraph g;
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "W", Tensor::Scalar<float>(1))}).ok());
  test::ExpectError(g.Run({}, {g.Update("assign", "W", Tensor::Scalar<int32_t>(1))}), Code::kInvalidArgument,
                    "value has dtype i32 but variable 'W' holds f32[]");
}

TEST(AssignTest, StringVariables) {
  test::StateGraph g;
  Output read = g.Read("S", DType::kString, PartialShape({2}));
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "S", test::MakeStrings({"x", "y"}, TensorShape({2})))}).ok());
  auto r = g.Run({read});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].data<std::string>()[1], "y");
}

}  // namespace
}  // namespace tfg
