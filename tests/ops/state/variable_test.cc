#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg {
namespace {

TEST(VariableTest, ReadBeforeInitIsFailedPrecondition) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape({2}));
  auto r = g.Run({w});
  test::ExpectError(r, Code::kFailedPrecondition,
                    "variable 'W' is used before it is initialized; call init() first");
  // The message names the variable once, not "variable 'W': variable 'W' ...".
  EXPECT_EQ(r.status().message().find("variable 'W'", 1), std::string::npos) << r.status().message();
}

TEST(VariableTest, ReadsSeeTheAssignedValue) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape({2}));
  Node* init = g.Update("assign", "W", Tensor::Vector<float>({1, 2}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto r = g.Run({w});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0], {1, 2}, TensorShape({2}));
}

TEST(VariableTest, ReadsWithTheSameSharedNameShareState) {
  test::StateGraph g;
  Output a = g.Read("V", DType::kI32, PartialShape::Scalar());
  Node* inc = g.Update("assign_add", "V", Tensor::Scalar<int32_t>(5));
  // A second read node (as `with deps(inc) { V }` builds) runs after inc.
  Output b = g.Read("V", DType::kI32, PartialShape::Scalar(), {inc});
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "V", Tensor::Scalar<int32_t>(10))}).ok());
  auto r = g.Run({b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].scalar<int32_t>(), 15);
  EXPECT_EQ((*g.Run({a}))[0].scalar<int32_t>(), 15);
}

TEST(VariableTest, ReadOfTheWrongDtypeIsAnError) {
  test::StateGraph g;
  Output as_f64 = g.Read("W", DType::kF64, PartialShape::Unknown());
  ASSERT_TRUE(g.Run({}, {g.Update("assign", "W", Tensor::Scalar<float>(1))}).ok());
  test::ExpectError(g.Run({as_f64}), Code::kInvalidArgument, "variable 'W' holds f32[] but is read as f64");
}

TEST(VariableTest, ResetDropsTheContainer) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape::Scalar(), {}, "model");
  Node* init = g.Update("assign", "W", Tensor::Scalar<float>(3), {{"container", std::string("model")}});
  ASSERT_TRUE(g.Run({}, {init}).ok());
  ASSERT_TRUE(g.Run({w}).ok());
  g.session().resources()->Reset("other");
  ASSERT_TRUE(g.Run({w}).ok());
  g.session().resources()->Reset("model");
  test::ExpectError(g.Run({w}), Code::kFailedPrecondition, "used before it is initialized");
}

TEST(VariableTest, ShapeFunctionUsesTheDeclaredShape) {
  AttrMap attrs = {{"dtype", DType::kF32}, {"shape", PartialShape({784, 10})}, {"shared_name", std::string("W")}};
  EXPECT_EQ(test::InferShapesString("variable", {}, {}, attrs), "[784, 10]");
}

}  // namespace
}  // namespace tfg
