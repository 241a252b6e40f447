#include "net/graph_codec.h"

#include <gtest/gtest.h>

#include "interp/language/interpreter.h"
#include "interp/runtime/plan.h"
#include "devices/cpu/cpu_device.h"

namespace tfg::net {
namespace {

// A graph built by a script (check mode: nothing runs), with a while_loop
// (whose merge has a back edge), a control dependency and a placeholder.
class GraphCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InterpreterOptions o;
    o.check_only = true;
    o.quiet = true;
    interp_ = std::make_unique<Interpreter>(o);
    Status s = interp_->RunSource("g.tfg", R"(x = placeholder(f32, [?, 2], name="x")
c = constant(2.0, name="c")
with deps(c) { y = x * c }
i, s = while_loop(fn(i, s) { i < 3 }, fn(i, s) { [i + 1, s + 2.0] }, [0, 1.0])
)");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const Graph& graph() { return interp_->graph(); }
  std::unique_ptr<Interpreter> interp_;
};

TEST_F(GraphCodecTest, RoundTripKeepsEveryNode) {
  GraphDef def = EncodeGraph(graph());
  Message m;
  m.kind = MessageKind::kRegisterGraph;
  m.register_graph.graph = def;
  auto bytes = EncodeMessage(m);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(bytes->attachments.empty());
  auto decoded = DecodeMessage(bytes->head);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  auto g = DecodeGraph(decoded->register_graph.graph);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ((*g)->num_nodes(), graph().num_nodes());
  for (int i = 0; i < graph().num_nodes(); ++i) {
    const Node& a = *graph().node(i);
    const Node& b = *(*g)->node(i);
    EXPECT_EQ(a.name(), b.name());
    EXPECT_EQ(a.op_name(), b.op_name());
    ASSERT_EQ(a.inputs().size(), b.inputs().size()) << a.name();
    for (size_t k = 0; k < a.inputs().size(); ++k) EXPECT_EQ(a.inputs()[k].name(), b.inputs()[k].name()) << a.name();
    ASSERT_EQ(a.control_inputs().size(), b.control_inputs().size()) << a.name();
    for (int k = 0; k < a.num_outputs(); ++k) {
      EXPECT_EQ(a.output_shapes()[k].ToString(), b.output_shapes()[k].ToString()) << a.name();
    }
    EXPECT_EQ(a.span().ToString(), b.span().ToString());
    if (a.span().valid()) {
      EXPECT_EQ(a.span().file->Line(a.span().line), b.span().file->Line(b.span().line));
    }
  }
  // The rebuilt loop runs: a plan builds for its exit.
  CpuDevice cpu(1);
  Node* exit = nullptr;
  for (const auto& n : (*g)->nodes()) {
    if (n->op_name() == "exit") exit = n.get();
  }
  ASSERT_NE(exit, nullptr);
  auto plan = BuildPlan(**g, {}, {exit->output(0)}, {}, &cpu);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
}

TEST_F(GraphCodecTest, RefusesUnknownOpsAndBadInputs) {
  GraphDef def = EncodeGraph(graph());
  GraphDef unknown = def;
  unknown.nodes[1].op = "frobnicate";
  auto g = DecodeGraph(unknown);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("invalid graph from the network"), std::string::npos);

  GraphDef out_of_range = def;
  for (NodeDef& n : out_of_range.nodes) {
    if (!n.inputs.empty()) {
      n.inputs[0].node = 100000;
      break;
    }
  }
  g = DecodeGraph(out_of_range);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("an input names a node that is not there"), std::string::npos);

  GraphDef bad_output = def;
  for (NodeDef& n : bad_output.nodes) {
    if (!n.inputs.empty()) {
      n.inputs[0].output = 7;
      break;
    }
  }
  EXPECT_FALSE(DecodeGraph(bad_output).ok());

  GraphDef forward = def;
  for (size_t i = 0; i < forward.nodes.size(); ++i) {
    if (!forward.nodes[i].inputs.empty()) {
      forward.nodes[i].inputs[0].node = static_cast<int32_t>(forward.nodes.size() - 1);
      break;
    }
  }
  EXPECT_FALSE(DecodeGraph(forward).ok());

  GraphDef wrong_attr = def;
  wrong_attr.nodes[1].attrs["value"] = std::string("not a tensor");
  EXPECT_FALSE(DecodeGraph(wrong_attr).ok());
}

TEST(FindOutputTest, NamesAndErrors) {
  Graph g;
  NodeSpec spec;
  spec.op = "constant";
  spec.attrs = {{"value", Tensor::Scalar<float>(1)}, {"dtype", DType::kF32}};
  spec.name = "c";
  auto c = g.AddNode(std::move(spec));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(FindOutput(g, "c:0").ok());
  EXPECT_TRUE(FindOutput(g, "c").ok());
  EXPECT_EQ(FindOutput(g, "c:1").status().message(), "node 'c' has no output 1");
  EXPECT_EQ(FindOutput(g, "d:0").status().message(), "no node 'd' in the registered graph");
  EXPECT_EQ(FindOutput(g, "c:x").status().message(), "bad output name 'c:x'");
}

}  // namespace
}  // namespace tfg::net
