#include "ops/core/graph.h"

#include <gtest/gtest.h>

#include <optional>

namespace tfg {
namespace {

// Test-only ops, so these tests don't depend on the real op families.
TFG_REGISTER_OP(OpDefBuilder("test_source")
                    .TypeAttr("dtype", AllTypes())
                    .Attr("shape", AttrType::kShape)
                    .Output("out", "dtype")
                    .SetShapeFn([](ShapeContext& c) {
                      c.set_output(0, *c.attr<PartialShape>("shape"));
                      return Status::OK();
                    }));
TFG_REGISTER_OP(OpDefBuilder("test_add")
                    .Input("x", "T")
                    .Input("y", "T")
                    .Output("z", "T")
                    .TypeAttr("T", NumberTypes())
                    .SetShapeFn(shape_fns::Broadcast));
TFG_REGISTER_OP(OpDefBuilder("test_concat")
                    .InputList("values", "T")
                    .Attr("axis", AttrType::kInt, int64_t{0})
                    .Output("out", "T")
                    .TypeAttr("T", AllTypes()));
TFG_REGISTER_OP(OpDefBuilder("test_split")
                    .Input("x", "T")
                    .Attr("num", AttrType::kInt)
                    .OutputList("parts", "T", "num")
                    .TypeAttr("T", AllTypes()));

Node* Source(Graph& g, DType dtype, PartialShape shape, const std::string& name = "") {
  NodeSpec spec{"test_source", {}, {}, {{"dtype", dtype}, {"shape", shape}}, name, "", {}};
  return *g.AddNode(std::move(spec));
}

TEST(GraphTest, InfersTypeAttrAndBroadcastShape) {
  Graph g;
  Node* a = Source(g, DType::kF32, PartialShape({-1, 3}), "a");
  Node* b = Source(g, DType::kF32, PartialShape({3}), "b");
  auto n = g.AddNode({"test_add", {a->output(0), b->output(0)}, {}, {}, "", "", {}});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*(*n)->attr<DType>("T"), DType::kF32);
  EXPECT_EQ((*n)->output_types()[0], DType::kF32);
  EXPECT_EQ((*n)->output_shapes()[0].ToString(), "[?, 3]");
  EXPECT_EQ((*n)->name(), "test_add");
}

TEST(GraphTest, DtypeMismatchNamesBothInputs) {
  Graph g;
  Node* a = Source(g, DType::kF32, PartialShape({2}));
  Node* b = Source(g, DType::kI32, PartialShape({2}));
  auto n = g.AddNode({"test_add", {a->output(0), b->output(0)}, {}, {}, "", "", {}});
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "test_add: inputs 'x' and 'y' must have the same dtype, got f32 and i32");
}

TEST(GraphTest, DisallowedDtype) {
  Graph g;
  Node* a = Source(g, DType::kBool, PartialShape({2}));
  auto n = g.AddNode({"test_add", {a->output(0), a->output(0)}, {}, {}, "", "", {}});
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(), "test_add: dtype bool is not supported; expected one of {f16, f32, f64, i32, i64}");
}

TEST(GraphTest, ShapeErrorNamesOpAndShapesAndKeepsSpan) {
  Graph g;
  auto file = std::make_shared<SourceFile>("t.tfg", "y = a + b\n");
  Node* a = Source(g, DType::kF32, PartialShape({2, 3}));
  Node* b = Source(g, DType::kF32, PartialShape({4}));
  SourceSpan span{file, 1, 5, 1, 9};
  auto n = g.AddNode({"test_add", {a->output(0), b->output(0)}, {}, {}, "", "", span});
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().message(),
            "test_add: shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)");
  EXPECT_EQ(n.status().span().line, 1);
  EXPECT_EQ(FormatDiagnostic(n.status()),
            "t.tfg:1:5: error: test_add: shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)\n"
            " 1 | y = a + b\n"
            "   |     ^~~~~\n");
}

TEST(GraphTest, UniqueNamesAndLookup) {
  Graph g;
  Node* a = Source(g, DType::kF32, PartialShape({}), "x");
  Node* b = Source(g, DType::kF32, PartialShape({}), "x");
  Node* c = Source(g, DType::kF32, PartialShape({}), "x");
  EXPECT_EQ(a->name(), "x");
  EXPECT_EQ(b->name(), "x_1");
  EXPECT_EQ(c->name(), "x_2");
  EXPECT_EQ(g.FindNode("x_1"), b);
  EXPECT_EQ(g.FindNode("nope"), nullptr);
  EXPECT_EQ(g.version(), 3);
}

TEST(GraphTest, ListInputsAndOutputs) {
  Graph g;
  Node* a = Source(g, DType::kI64, PartialShape({2}));
  auto cat = g.AddNode({"test_concat", {a->output(0), a->output(0), a->output(0)}, {}, {}, "", "", {}});
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  EXPECT_EQ(*(*cat)->attr<int64_t>("values_count"), 3);
  EXPECT_EQ(*(*cat)->attr<int64_t>("axis"), 0);  // default filled
  auto split = g.AddNode({"test_split", {a->output(0)}, {}, {{"num", int64_t{4}}}, "", "", {}});
  ASSERT_TRUE(split.ok());
  EXPECT_EQ((*split)->num_outputs(), 4);
}

TEST(GraphTest, MissingAndUnknownAttrs) {
  Graph g;
  Node* a = Source(g, DType::kI64, PartialShape({2}));
  auto missing = g.AddNode({"test_split", {a->output(0)}, {}, {}, "", "", {}});
  EXPECT_EQ(missing.status().message(), "test_split: missing required argument 'num'");
  auto unknown = g.AddNode({"test_split", {a->output(0)}, {}, {{"num", int64_t{1}}, {"bogus", true}}, "", "", {}});
  EXPECT_EQ(unknown.status().message(), "test_split has no attribute 'bogus'");
  auto wrong = g.AddNode({"test_split", {a->output(0)}, {}, {{"num", 1.5}}, "", "", {}});
  EXPECT_EQ(wrong.status().message(), "test_split: argument 'num' must be a int, got 1.5");
  auto arity = g.AddNode({"test_add", {a->output(0)}, {}, {}, "", "", {}});
  EXPECT_EQ(arity.status().message(), "test_add takes 2 inputs, got 1");
}

TEST(GraphTest, ControlInputEditsBumpEpochOnlyForExistingNodes) {
  Graph g;
  Node* a = Source(g, DType::kF32, PartialShape({}));
  Node* b = *g.AddNode({"test_source", {}, {a}, {{"dtype", DType::kF32}, {"shape", PartialShape({})}}, "", "", {}});
  EXPECT_EQ(g.edits(), 0);
  ASSERT_EQ(b->control_inputs().size(), 1u);
  Node* c = Source(g, DType::kF32, PartialShape({}));
  c->AddControlInput(a);
  EXPECT_EQ(g.edits(), 1);
  c->AddControlInput(a);  // duplicate: no change
  EXPECT_EQ(g.edits(), 1);
}

TEST(GraphTest, UnknownOp) {
  Graph g;
  auto n = g.AddNode({"no_such_op", {}, {}, {}, "", "", {}});
  EXPECT_EQ(n.status().code(), Code::kNotFound);
  EXPECT_EQ(n.status().message(), "unknown op 'no_such_op'");
}

TEST(OpRegistryTest, ParamsSkipInferredTypeAttrs) {
  const OpDef* add = OpRegistry::Global().Find("test_add");
  ASSERT_NE(add, nullptr);
  ASSERT_EQ(add->params.size(), 2u);
  EXPECT_TRUE(add->params[0].is_input);
  const OpDef* src = OpRegistry::Global().Find("test_source");
  ASSERT_EQ(src->params.size(), 2u);  // dtype is positional: no input to infer it from
  EXPECT_FALSE(src->params[0].is_input);
  EXPECT_EQ(src->attrs[src->params[0].index].name, "dtype");
}

TEST(OpRegistryTest, SuggestsCloseNames) {
  auto s = OpRegistry::Global().Suggest("test_ad");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "test_add");
}

// Lists of tensors of different dtypes, typed by a type-list attr.
TFG_REGISTER_OP(OpDefBuilder("test_tuple_in")
                    .InputList("values", "types")
                    .Attr("types", AttrType::kTypeList));
TFG_REGISTER_OP(OpDefBuilder("test_tuple_out")
                    .Attr("types", AttrType::kTypeList)
                    .OutputList("parts", "types", ""));
TFG_REGISTER_OP(OpDefBuilder("test_tuple_out_counted")
                    .Attr("num", AttrType::kInt)
                    .Attr("types", AttrType::kTypeList)
                    .OutputList("parts", "types", "num"));

Result<Node*> TupleIn(Graph& g, std::vector<Output> values, std::optional<std::vector<DType>> types = std::nullopt) {
  AttrMap attrs;
  if (types) attrs["types"] = *types;
  return g.AddNode({"test_tuple_in", std::move(values), {}, std::move(attrs), "", "", {}});
}

TEST(GraphTest, TypeListInputIsInferredElementByElement) {
  Graph g;
  Node* img = Source(g, DType::kF32, PartialShape({784}));
  Node* label = Source(g, DType::kI32, PartialShape({}));
  auto n = TupleIn(g, {img->output(0), label->output(0)});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*(*n)->attr<std::vector<DType>>("types"), (std::vector<DType>{DType::kF32, DType::kI32}));
  EXPECT_EQ((*n)->input_types(), (std::vector<DType>{DType::kF32, DType::kI32}));
  EXPECT_EQ(*(*n)->attr<int64_t>("values_count"), 2);
  auto empty = TupleIn(g, {});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE((*empty)->attr<std::vector<DType>>("types")->empty());
}

TEST(GraphTest, GivenTypeListIsCheckedElementByElement) {
  Graph g;
  Node* img = Source(g, DType::kF32, PartialShape({784}));
  Node* label = Source(g, DType::kI32, PartialShape({}));
  std::vector<Output> values{img->output(0), label->output(0)};
  EXPECT_TRUE(TupleIn(g, values, std::vector<DType>{DType::kF32, DType::kI32}).ok());
  auto wrong = TupleIn(g, values, std::vector<DType>{DType::kF32, DType::kF64});
  EXPECT_EQ(wrong.status().message(), "test_tuple_in: input 'values[1]' must be f64 (types[1]), got i32");
  auto shorter = TupleIn(g, values, std::vector<DType>{DType::kF32});
  EXPECT_EQ(shorter.status().message(), "test_tuple_in: types lists 1 dtype, but input 'values' has 2 tensors");
  AttrMap not_a_list{{"types", DType::kF32}};
  auto scalar = g.AddNode({"test_tuple_in", values, {}, not_a_list, "", "", {}});
  EXPECT_EQ(scalar.status().message(), "test_tuple_in: argument 'types' must be a list of dtype, got f32");
}

TEST(GraphTest, TypeListOutputsOnePerListedDType) {
  Graph g;
  const std::vector<DType> types{DType::kF32, DType::kI32, DType::kString};
  auto n = g.AddNode({"test_tuple_out", {}, {}, {{"types", types}}, "", "", {}});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ((*n)->output_types(), types);
  auto missing = g.AddNode({"test_tuple_out", {}, {}, {}, "", "", {}});
  EXPECT_EQ(missing.status().message(), "test_tuple_out: missing required argument 'types'");
  auto counted = g.AddNode({"test_tuple_out_counted", {}, {}, {{"types", types}, {"num", int64_t{3}}}, "", "", {}});
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  EXPECT_EQ((*counted)->num_outputs(), 3);
  auto disagree = g.AddNode({"test_tuple_out_counted", {}, {}, {{"types", types}, {"num", int64_t{2}}}, "", "", {}});
  EXPECT_EQ(disagree.status().message(), "test_tuple_out_counted: types lists 3 dtypes, but num is 2");
}

TEST(OpRegistryTest, TypeListAttrsAreInferredOnlyFromInputs) {
  const OpDef* in = OpRegistry::Global().Find("test_tuple_in");
  ASSERT_NE(in, nullptr);
  EXPECT_TRUE(in->FindAttr("types")->inferred);
  ASSERT_EQ(in->params.size(), 1u);  // just the list: types is keyword-only
  const OpDef* out = OpRegistry::Global().Find("test_tuple_out");
  ASSERT_NE(out, nullptr);
  EXPECT_FALSE(out->FindAttr("types")->inferred);
  ASSERT_EQ(out->params.size(), 1u);
  EXPECT_EQ(out->attrs[out->params[0].index].name, "types");
}

TEST(OpRegistryTest, TypeListMayTypeOnlyLists) {
  OpDefBuilder bad("test_type_list_not_a_list");
  bad.Input("x", "types").Attr("types", AttrType::kTypeList);
  OpRegistry::Global().Register(std::move(bad).Build());
  EXPECT_EQ(OpRegistry::Global().Find("test_type_list_not_a_list"), nullptr);
}

}  // namespace
}  // namespace tfg
