// The GraphDef reader, importer and exporter on hand-made graphs: what
// TensorFlow's NodeDefs look like is known from TensorFlow's op registry
// (ConcatV2 takes its axis as the last input, Sum its reduction_indices as
// input 1, with type attrs T and Tidx), so the expectations are written out.
#include <gtest/gtest.h>

#include "interp/interop/exporter.h"
#include "interp/interop/graph_def_io.h"
#include "interp/interop/importer.h"

namespace tfg::interop {
namespace {

constexpr const char* kSumGraph = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
  node { name: "s" op: "Sum" input: "x" input: "axis"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }
         attr { key: "keep_dims" value { b: true } } }
)pb";

AddNodeFn Into(Graph& g) {
  return [&g](NodeSpec spec) { return g.AddNode(std::move(spec)); };
}

TEST(TfGraphDefImportExportTest, TextFormatImportsWithAttrInputsAsAttrs) {
  Result<tf::GraphDef> def = ParseGraphDef(kSumGraph, "sum.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status().message();
  Graph g;
  ImportOptions opts;
  Result<ImportedGraph> imported = ImportGraphDef(*def, opts, Into(g));
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Node* s = g.FindNode("import/s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->op_name(), "sum");
  ASSERT_EQ(s->inputs().size(), 1u);
  EXPECT_EQ(s->inputs()[0].node->name(), "import/x");
  ASSERT_NE(s->attr<std::vector<int64_t>>("axis"), nullptr);
  EXPECT_EQ(*s->attr<std::vector<int64_t>>("axis"), std::vector<int64_t>{1});
  EXPECT_TRUE(*s->attr<bool>("keepdims"));
  EXPECT_EQ(imported->tensors.back().first, "s:0");
}

TEST(TfGraphDefImportExportTest, BinaryRoundTripsThroughExport) {
  Result<tf::GraphDef> def = ParseGraphDef(kSumGraph, "sum.pbtxt");
  ASSERT_TRUE(def.ok());
  std::string bytes;
  ASSERT_TRUE(def->SerializeToString(&bytes));
  Result<tf::GraphDef> binary = ParseGraphDef(bytes, "sum.pb");
  ASSERT_TRUE(binary.ok()) << binary.status().message();
  Graph g;
  ImportOptions opts;
  opts.scope = "";
  ASSERT_TRUE(ImportGraphDef(*binary, opts, Into(g)).ok());
  Result<tf::GraphDef> out = ExportGraphDef(g);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const tf::NodeDef* sum = nullptr;
  const tf::NodeDef* axis = nullptr;
  for (const tf::NodeDef& n : out->node()) {
    if (n.name() == "s") sum = &n;
    if (n.name() == "s/reduction_indices") axis = &n;
  }
  ASSERT_NE(sum, nullptr);
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(sum->op(), "Sum");
  ASSERT_EQ(sum->input_size(), 2);
  EXPECT_EQ(sum->input(0), "x");
  EXPECT_EQ(sum->input(1), "s/reduction_indices");
  EXPECT_EQ(sum->attr().at("T").type(), tf::DT_FLOAT);
  EXPECT_EQ(sum->attr().at("Tidx").type(), tf::DT_INT32);
  EXPECT_TRUE(sum->attr().at("keep_dims").b());
  EXPECT_EQ(axis->op(), "Const");
  EXPECT_EQ(axis->attr().at("value").tensor().tensor_content().size(), 4u);
}

TEST(TfGraphDefImportExportTest, MissingOpsAreListedWithCountsAndFirstNode) {
  Result<tf::GraphDef> def = ParseGraphDef(R"pb(
    node { name: "a" op: "Qr" } node { name: "b" op: "Qr" } node { name: "c" op: "Svd" }
  )pb", "m.pbtxt");
  ASSERT_TRUE(def.ok());
  Status s = CheckCoverage(*def);
  EXPECT_EQ(s.code(), Code::kUnimplemented);
  EXPECT_NE(s.message().find("Qr (2 nodes, first 'a')"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Svd (1 node, first 'c')"), std::string::npos) << s.message();
}

TEST(TfGraphDefImportExportTest, GarbageIsAnErrorNotACrash) {
  EXPECT_FALSE(ParseGraphDef("node { name: ", "bad.pbtxt").ok());
  EXPECT_FALSE(ParseGraphDef(std::string("\x0a\xff\xff\xff\x0f", 5), "bad.pb").ok());
}

TEST(TfGraphDefImportExportTest, CyclesOtherThanLoopBackEdgesAreRefused) {
  Result<tf::GraphDef> def = ParseGraphDef(R"pb(
    node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb", "cycle.pbtxt");
  ASSERT_TRUE(def.ok());
  Graph g;
  Result<ImportedGraph> imported = ImportGraphDef(*def, ImportOptions{}, Into(g));
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.status().message().find("cycle"), std::string::npos) << imported.status().message();
  EXPECT_EQ(g.num_nodes(), 0);
}

}  // namespace
}  // namespace tfg::interop
