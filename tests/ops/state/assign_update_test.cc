#include <gtest/gtest.h>

#include "ops/core/resource_mgr.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg {
namespace {

TEST(AssignUpdateTest, AddAndSubtract) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape({3}));
  Node* init = g.Update("assign", "W", Tensor::Vector<float>({1, 2, 3}));
  Node* add = g.Update("assign_add", "W", Tensor::Vector<float>({0.5f, 0.5f, 0.5f}));
  Node* sub = g.Update("assign_sub", "W", Tensor::Vector<float>({2, 4, 8}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto r = g.Run({add->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0], {1.5f, 2.5f, 3.5f}, TensorShape({3}));
  r = g.Run({sub->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0], {-0.5f, -1.5f, -4.5f}, TensorShape({3}));
  test::ExpectTensorEq<float>((*g.Run({w}))[0], {-0.5f, -1.5f, -4.5f}, TensorShape({3}));
}

TEST(AssignUpdateTest, UpdatesInPlaceWhenNobodyHoldsTheValue) {
  test::StateGraph g;
  Node* init = g.Update("assign", "W", Tensor::Vector<int64_t>({1, 2}));
  Node* add = g.Update("assign_add", "W", Tensor::Vector<int64_t>({1, 1}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto var = g.session().resources()->Lookup<Variable>("", "W");
  ASSERT_TRUE(g.Run({}, {add}).ok());
  const void* buffer = var->value.raw_data();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(g.Run({}, {add}).ok());
  EXPECT_EQ(var->value.raw_data(), buffer);
  test::ExpectTensorEq<int64_t>(var->value, {5, 6}, TensorShape({2}));
}

TEST(AssignUpdateTest, ReadersHoldingAValueNeverSeeItChange) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape({2}));
  Node* init = g.Update("assign", "W", Tensor::Vector<float>({1, 2}));
  Node* add = g.Update("assign_add", "W", Tensor::Vector<float>({100, 100}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto before = g.Run({w});
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(g.Run({}, {add}).ok());
  test::ExpectTensorEq<float>((*before)[0], {1, 2}, TensorShape({2}));
  test::ExpectTensorEq<float>((*g.Run({w}))[0], {101, 102}, TensorShape({2}));
}

TEST(AssignUpdateTest, UninitializedVariableIsFailedPrecondition) {
  test::StateGraph g;
  Node* add = g.Update("assign_add", "W", Tensor::Scalar<float>(1));
  test::ExpectError(g.Run({}, {add}), Code::kFailedPrecondition,
                    "variable 'W' is used before it is initialized; call init() first");
}

TEST(AssignUpdateTest, ShapeMismatchNamesBothShapes) {
  test::StateGraph g;
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "W", Tensor::Vector<float>({1, 2}))}).ok());
  Node* add = g.Update("assign_sub", "W", Tensor::Scalar<float>(1));
  test::ExpectError(g.Run({}, {add}), Code::kInvalidArgument,
                    "assign_sub: value of shape [] does not match variable 'W' of shape [2]");
}

TEST(AssignUpdateTest, HalfPrecision) {
  test::StateGraph g;
  Tensor h(HostAllocator(), DType::kF16, TensorShape({2}));
  h.data<half>()[0] = half(1.5f);
  h.data<half>()[1] = half(-2.0f);
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "H", h)}).ok());
  auto r = g.Run({g.Update("assign_add", "H", h)->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(static_cast<float>((*r)[0].data<half>()[0]), 3.0f);
  EXPECT_EQ(static_cast<float>((*r)[0].data<half>()[1]), -4.0f);
}

TEST(AssignUpdateTest, StringsAreNotNumbers) {
  test::StateGraph g;
  NodeSpec spec{"assign_add", {g.Const(test::MakeStrings({"a"}, TensorShape({1})))}, {},
                {{"shared_name", std::string("S")}}, "", "", {}};
  auto r = g.graph().AddNode(std::move(spec));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("string"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace tfg
