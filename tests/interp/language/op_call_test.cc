#include "interp/language/op_call.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

const OpDef& Op(const std::string& name) {
  const OpDef* op = OpRegistry::Global().Find(name);
  EXPECT_NE(op, nullptr) << name;
  return *op;
}

CallArgs Positional(std::vector<Value> values) {
  CallArgs args;
  for (Value& v : values) args.Add(std::move(v));
  return args;
}

Value Ints(std::initializer_list<int64_t> xs) {
  std::vector<Value> items;
  for (int64_t x : xs) items.push_back(Value::Int(x));
  return Value::NewList(std::move(items));
}

TEST(BindOpCallTest, PositionalThenKeywords) {
  CallArgs args = Positional({Value::Int(1), Value::Int(2)});
  args.AddKeyword("transpose_b", Value::Bool(true));
  args.AddKeyword("name", Value::Str("mm"));
  auto call = BindOpCall(Op("matmul"), args, {});
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->inputs[0]->as_int(), 1);
  EXPECT_EQ(call->inputs[1]->as_int(), 2);
  EXPECT_EQ(std::get<bool>(call->attrs.at("transpose_b")), true);
  EXPECT_EQ(*call->name, "mm");
}

TEST(BindOpCallTest, NonInferredTypeAttrIsPositional) {
  // placeholder(f32, [?, 784]) and cast(x, f64).
  auto p = BindOpCall(Op("placeholder"), Positional({Value::Type(DType::kF32), Value::NewList({Value(), Value::Int(784)})}), {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(std::get<DType>(p->attrs.at("dtype")), DType::kF32);
  EXPECT_EQ(std::get<PartialShape>(p->attrs.at("shape")), PartialShape({-1, 784}));
  auto c = BindOpCall(Op("cast"), Positional({Value::Int(1), Value::Type(DType::kF64)}), {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(std::get<DType>(c->attrs.at("DstT")), DType::kF64);
}

TEST(BindOpCallTest, DTypeKeywordNamesTheInferredTypeAttr) {
  CallArgs args = Positional({Value::Int(1), Value::Int(2)});
  args.AddKeyword("dtype", Value::Type(DType::kF64));
  auto call = BindOpCall(Op("add"), args, {});
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(std::get<DType>(call->attrs.at("T")), DType::kF64);
  auto want = ResolveInputDTypes(*call);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(*(*want)[0].dtype, DType::kF64);
  EXPECT_EQ(*(*want)[1].dtype, DType::kF64);
}

TEST(BindOpCallTest, Errors) {
  auto many = BindOpCall(Op("neg"), Positional({Value::Int(1), Value::Int(2)}), {});
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("neg"), std::string::npos);
  EXPECT_NE(many.status().message().find("at most 1"), std::string::npos);

  CallArgs unknown = Positional({Value::Int(1), Value::Int(2)});
  unknown.AddKeyword("transpose", Value::Bool(true));
  auto u = BindOpCall(Op("matmul"), unknown, {});
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("'transpose'"), std::string::npos);
  EXPECT_NE(u.status().message().find("transpose_a"), std::string::npos);

  auto missing = BindOpCall(Op("matmul"), Positional({Value::Int(1)}), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'b'"), std::string::npos);

  CallArgs twice = Positional({Value::Int(1), Value::Int(2)});
  twice.AddKeyword("a", Value::Int(3));
  EXPECT_FALSE(BindOpCall(Op("matmul"), twice, {}).ok());

  // An attr must be known when the graph is built.
  auto missing_attr = BindOpCall(Op("concat"), Positional({Value::NewList({Value::Int(1)})}), {});
  ASSERT_FALSE(missing_attr.ok());
  EXPECT_NE(missing_attr.status().message().find("axis"), std::string::npos);
}

TEST(ConvertAttrTest, ShapesAndLists) {
  const OpDef& reshape = Op("reshape");
  const AttrDef& shape = *reshape.FindAttr("shape");  // an int list
  EXPECT_EQ(std::get<std::vector<int64_t>>(*ConvertAttr(reshape, shape, Value::Int(4))), std::vector<int64_t>({4}));
  Value nested = Value::NewList({Ints({2, 3}), Ints({4})});
  EXPECT_EQ(std::get<std::vector<int64_t>>(*ConvertAttr(reshape, shape, nested)), std::vector<int64_t>({2, 3, 4}));
  auto bad = ConvertAttr(reshape, shape, Value::Float(1.5));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("reshape"), std::string::npos);
  EXPECT_NE(bad.status().message().find("shape"), std::string::npos);

  const OpDef& placeholder = Op("placeholder");
  const AttrDef& pshape = *placeholder.FindAttr("shape");
  EXPECT_EQ(std::get<PartialShape>(*ConvertAttr(placeholder, pshape, Value::Int(3))), PartialShape({3}));
  EXPECT_EQ(std::get<PartialShape>(*ConvertAttr(placeholder, pshape, Value())), PartialShape::Unknown());
  EXPECT_FALSE(ConvertAttr(placeholder, pshape, Value::Str("x")).ok());
}

TEST(ConvertAttrTest, ScalarsAndDTypes) {
  const OpDef& one_hot = Op("one_hot");
  EXPECT_EQ(std::get<double>(*ConvertAttr(one_hot, *one_hot.FindAttr("on_value"), Value::Int(2))), 2.0);
  // A bool is 1 or 0, as in TensorFlow's Python API (one_hot(..., on_value=true, dtype=bool)).
  EXPECT_EQ(std::get<double>(*ConvertAttr(one_hot, *one_hot.FindAttr("on_value"), Value::Bool(true))), 1.0);
  EXPECT_EQ(std::get<double>(*ConvertAttr(one_hot, *one_hot.FindAttr("off_value"), Value::Bool(false))), 0.0);
  EXPECT_EQ(std::get<int64_t>(*ConvertAttr(one_hot, *one_hot.FindAttr("depth"), Value::Int(10))), 10);
  EXPECT_FALSE(ConvertAttr(one_hot, *one_hot.FindAttr("depth"), Value::Float(10.0)).ok());
  EXPECT_EQ(std::get<DType>(*ConvertAttr(one_hot, *one_hot.FindAttr("dtype"), Value::Type(DType::kF64))), DType::kF64);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*ConvertAttr(one_hot, *one_hot.FindAttr("axis"), Value())));
}

TEST(ResolveInputDTypesTest, HostValuesFollowOtherInputs) {
  // A host tensor fixes the type attr for the host literal next to it.
  CallArgs args = Positional({Value::HostTensor(Tensor::Vector<double>({1.0, 2.0})), Value::Int(2)});
  auto call = BindOpCall(Op("mul"), args, {});
  ASSERT_TRUE(call.ok());
  auto want = ResolveInputDTypes(*call);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(*(*want)[1].dtype, DType::kF64);

  // Literals alone agree on the wider default: int with float -> f32.
  auto lit = BindOpCall(Op("add"), Positional({Value::Int(1), Value::Float(0.5)}), {});
  ASSERT_TRUE(lit.ok());
  auto lit_want = ResolveInputDTypes(*lit);
  EXPECT_EQ(*(*lit_want)[0].dtype, DType::kF32);

  // A fixed input dtype (gather's indices are typed by Tindices; where's cond is bool).
  auto sel = BindOpCall(Op("where"), Positional({Value::Bool(true), Value::Int(1), Value::Int(2)}), {});
  ASSERT_TRUE(sel.ok());
  auto sel_want = ResolveInputDTypes(*sel);
  EXPECT_EQ(*(*sel_want)[0].dtype, DType::kBool);
  EXPECT_EQ(*(*sel_want)[1].dtype, DType::kI32);
}

TEST(ReturnsListTest, ByOutputs) {
  EXPECT_FALSE(ReturnsList(Op("add")));
  EXPECT_TRUE(ReturnsList(Op("split")));
}

}  // namespace
}  // namespace tfg
