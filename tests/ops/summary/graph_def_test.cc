#include "ops/summary/graph_def.h"

#include <gtest/gtest.h>

#include "tests/interp/runtime/graph_test_util.h"

namespace tfg::summary {
namespace {

const pb::NodeDef* FindNode(const pb::GraphDef& g, const std::string& name) {
  for (const pb::NodeDef& n : g.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

TEST(GraphDefTest, NodesInputsDevicesAndAttrs) {
  Graph g;
  Node* x = test::AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({-1, 4})}},
                          "layer1/x");
  ASSERT_NE(x, nullptr);
  Node* parts = test::AddNode(g, "split", {x->output(0)}, {{"num", int64_t{2}}, {"axis", int64_t{1}}}, "layer1/split");
  ASSERT_NE(parts, nullptr);
  NodeSpec spec;
  spec.op = "matmul";
  spec.inputs = {parts->output(1), parts->output(0)};
  spec.attrs = {{"transpose_b", true}};
  spec.name = "layer2/matmul";
  spec.device = "/device:cpu:0";
  spec.control_inputs = {x};
  auto mm = g.AddNode(std::move(spec));
  ASSERT_TRUE(mm.ok()) << mm.status().ToString();

  pb::GraphDef def = ToGraphDef(g);
  ASSERT_EQ(def.node_size(), 3);
  const pb::NodeDef* n = FindNode(def, "layer2/matmul");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op(), "matmul");
  ASSERT_EQ(n->input_size(), 3);
  EXPECT_EQ(n->input(0), "layer1/split:1");
  EXPECT_EQ(n->input(1), "layer1/split");
  EXPECT_EQ(n->input(2), "^layer1/x");
  EXPECT_EQ(n->device(), "/device:cpu:0");
  ASSERT_TRUE(n->attr().count("T"));
  EXPECT_EQ(n->attr().at("T").type(), pb::DT_FLOAT);
  EXPECT_TRUE(n->attr().at("transpose_b").b());
  // [?, 2] x [?, 2]^T: [?, ?].
  const pb::AttrValue& shapes = n->attr().at("_output_shapes");
  ASSERT_EQ(shapes.list().shape_size(), 1);
  ASSERT_EQ(shapes.list().shape(0).dim_size(), 2);
  EXPECT_EQ(shapes.list().shape(0).dim(0).size(), -1);

  const pb::NodeDef* p = FindNode(def, "layer1/x");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->attr().at("dtype").type(), pb::DT_FLOAT);
  const pb::TensorShapeProto& shape = p->attr().at("shape").shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).size(), -1);
  EXPECT_EQ(shape.dim(1).size(), 4);

  const pb::NodeDef* s = FindNode(def, "layer1/split");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->attr().at("num").i(), 2);
  EXPECT_EQ(s->attr().at("_output_shapes").list().shape_size(), 2);
}

TEST(GraphDefTest, DTypesMapToTensorFlowNumbers) {
  EXPECT_EQ(ToProtoDType(DType::kF32), 1);
  EXPECT_EQ(ToProtoDType(DType::kF64), 2);
  EXPECT_EQ(ToProtoDType(DType::kI32), 3);
  EXPECT_EQ(ToProtoDType(DType::kString), 7);
  EXPECT_EQ(ToProtoDType(DType::kI64), 9);
  EXPECT_EQ(ToProtoDType(DType::kBool), 10);
  EXPECT_EQ(ToProtoDType(DType::kF16), 19);
}

TEST(GraphDefTest, UnknownRank) {
  pb::TensorShapeProto p = ToProtoShape(PartialShape::Unknown());
  EXPECT_TRUE(p.unknown_rank());
  EXPECT_EQ(p.dim_size(), 0);
}

}  // namespace
}  // namespace tfg::summary
