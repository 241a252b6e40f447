#include "ops/framework/graph.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tfg
