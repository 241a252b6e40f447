#include "interp/runtime/graph_optimizer.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "interp/language/interpreter.h"
#include "interp/runtime/session.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

Output ConstF(Graph& g, float v, const std::string& name = "") {
  return AddNode(g, "constant", {}, {{"value", Tensor::Scalar<float>(v)}, {"dtype", DType::kF32}}, name)->output(0);
}
Output ConstI(Graph& g, int32_t v) {
  return AddNode(g, "constant", {}, {{"value", Tensor::Scalar<int32_t>(v)}, {"dtype", DType::kI32}})->output(0);
}
Output Placeholder(Graph& g, const std::string& name, PartialShape shape) {
  return AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", shape}}, name)->output(0);
}
Output Op(Graph& g, const std::string& op, std::vector<Output> in, const std::string& name = "", SourceSpan span = {}) {
  return AddNode(g, op, std::move(in), {}, name, std::move(span))->output(0);
}

int CountOps(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes()) n += node->op_name() == op;
  return n;
}

class GraphOptimizerTest : public ::testing::Test {
 protected:
  Result<OptimizedGraph> Optimize(const Graph& g, std::vector<Output> feeds, std::vector<Output> fetches,
                                  std::vector<Node*> targets = {}, OptimizeOptions options = {}) {
    return OptimizeGraph(g, feeds, fetches, targets, options, &cpu_);
  }
  // Runs the optimized graph with the feeds' values.
  std::vector<Tensor> Run(const OptimizedGraph& o, const std::vector<Tensor>& values) {
    Session s(o.graph.get(), {});
    std::vector<std::pair<Output, Tensor>> feeds;
    for (size_t i = 0; i < values.size(); ++i) feeds.emplace_back(o.feeds[i], values[i]);
    auto r = s.Run(feeds, o.fetches, o.targets);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Tensor>{};
  }
  CpuDevice cpu_{1};
};

TEST_F(GraphOptimizerTest, TwoEqualMatmulsOfTheSameInputsBecomeOne) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({2, 2}));
  Output w = Placeholder(g, "w", PartialShape({2, 2}));
  Output a = Op(g, "matmul", {x, w}, "a");
  Output b = Op(g, "matmul", {x, w}, "b");
  Output sum = Op(g, "add", {a, b});
  auto o = Optimize(g, {x, w}, {sum, a, b});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(CountOps(*o->graph, "matmul"), 1);
  EXPECT_EQ(o->stats.merged, 1);
  EXPECT_EQ(o->fetches[1], o->fetches[2]);
  // [[1,2],[3,4]] @ [[1,0],[1,1]] = [[3,2],[7,4]]; the sum doubles it.
  auto r = Run(*o, {Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2}), Tensor::FromVector<float>({1, 0, 1, 1}, {2, 2})});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(std::vector<float>(r[0].data<float>(), r[0].data<float>() + 4), std::vector<float>({6, 4, 14, 8}));
}

TEST_F(GraphOptimizerTest, MatmulsDifferingInAnAttrStayTwo) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({2, 2}));
  Output a = Op(g, "matmul", {x, x});
  Output b = AddNode(g, "matmul", {x, x}, {{"transpose_a", true}})->output(0);
  auto o = Optimize(g, {x}, {Op(g, "add", {a, b})});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(CountOps(*o->graph, "matmul"), 2);
  EXPECT_EQ(o->stats.merged, 0);
}

TEST_F(GraphOptimizerTest, RandomOpsAreNeverMerged) {
  Graph g;
  AttrMap attrs = {{"shape", std::vector<int64_t>{3}}};
  Output r1 = AddNode(g, "random_uniform", {}, attrs, "r1")->output(0);
  Output r2 = AddNode(g, "random_uniform", {}, attrs, "r2")->output(0);
  auto o = Optimize(g, {}, {Op(g, "sub", {r1, r2})});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(CountOps(*o->graph, "random_uniform"), 2);
  EXPECT_EQ(o->stats.merged, 0);
  EXPECT_EQ(o->stats.folded, 0);
  // Names are kept: random streams derive from them.
  EXPECT_NE(o->graph->FindNode("r1"), nullptr);
  EXPECT_NE(o->graph->FindNode("r2"), nullptr);
}

TEST_F(GraphOptimizerTest, ConstantProductIsFoldedKeepingNameAndSpan) {
  auto file = std::make_shared<SourceFile>("f.tfg", "y = constant(2) * constant(3) + x\n");
  SourceSpan mul_span{file, 1, 5, 1, 30};
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({2}));
  Output product = Op(g, "mul", {ConstF(g, 2), ConstF(g, 3)}, "product", mul_span);
  Output y = Op(g, "add", {product, x}, "y");
  auto o = Optimize(g, {x}, {y});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 1);
  EXPECT_EQ(o->stats.merged, 0);
  EXPECT_EQ(o->stats.pruned, 2);  // the two factors
  EXPECT_EQ(o->stats.Summary(), "folded 1 node, merged 0, pruned 2");
  EXPECT_EQ(CountOps(*o->graph, "mul"), 0);
  EXPECT_EQ(o->graph->num_nodes(), 3);  // x, product, y
  const Node* folded = o->graph->FindNode("product");
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(folded->op_name(), "constant");
  EXPECT_EQ(folded->span().line, 1);
  EXPECT_EQ(folded->span().col, 5);
  EXPECT_EQ(folded->attr<Tensor>("value")->scalar<float>(), 6.0f);
  auto r = Run(*o, {Tensor::Vector<float>({1, -1})});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].data<float>()[0], 7.0f);
  EXPECT_EQ(r[0].data<float>()[1], 5.0f);
}

TEST_F(GraphOptimizerTest, FoldingChainsThroughSeveralNodes) {
  Graph g;
  Output a = Op(g, "add", {ConstF(g, 1), ConstF(g, 2)});
  Output b = Op(g, "mul", {a, ConstF(g, 4)});
  auto o = Optimize(g, {}, {Op(g, "neg", {b}, "out")});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 3);
  EXPECT_EQ(o->graph->num_nodes(), 1);
  EXPECT_EQ(o->fetches[0].node->attr<Tensor>("value")->scalar<float>(), -12.0f);
}

TEST_F(GraphOptimizerTest, AFedConstantIsNotFolded) {
  Graph g;
  Output c = ConstF(g, 2, "c");
  Output y = Op(g, "mul", {c, ConstF(g, 3)});
  auto o = Optimize(g, {c}, {y});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 0);
  EXPECT_EQ(o->feeds[0].node->op_name(), "placeholder");
  EXPECT_EQ(o->feeds[0].node->name(), "c/fed_0");
  auto r = Run(*o, {Tensor::Scalar<float>(5)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].scalar<float>(), 15.0f);
}

TEST_F(GraphOptimizerTest, StatefulOpsAreNeitherFoldedNorMerged) {
  Graph g;
  AttrMap var = {{"dtype", DType::kF32}, {"shape", PartialShape::Scalar()}, {"shared_name", std::string("v")}};
  Node* init1 = AddNode(g, "assign", {ConstF(g, 1)}, {{"shared_name", std::string("v")}}, "init1");
  Node* init2 = AddNode(g, "assign", {ConstF(g, 1)}, {{"shared_name", std::string("v")}}, "init2");
  Output read = AddNode(g, "variable", {}, var, "v")->output(0);
  auto o = Optimize(g, {}, {}, {init1, init2});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(CountOps(*o->graph, "assign"), 2);
  EXPECT_EQ(o->stats.pruned, 1);  // the variable nothing here reads
  EXPECT_EQ(o->stats.merged, 1);  // the two equal constants
  (void)read;
}

TEST_F(GraphOptimizerTest, NodesWithControlInputsAreNotFolded) {
  Graph g;
  Node* gate = AddNode(g, "no_op", {}, {}, "gate");
  NodeSpec spec;
  spec.op = "add";
  spec.inputs = {ConstF(g, 1), ConstF(g, 2)};
  spec.control_inputs = {gate};
  spec.name = "gated";
  auto gated = g.AddNode(std::move(spec));
  ASSERT_TRUE(gated.ok());
  auto o = Optimize(g, {}, {(*gated)->output(0)});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 0);
  const Node* copy = o->graph->FindNode("gated");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->op_name(), "add");
  ASSERT_EQ(copy->control_inputs().size(), 1u);
  EXPECT_EQ(copy->control_inputs()[0]->name(), "gate");
}

TEST_F(GraphOptimizerTest, AKernelErrorLeavesTheNodeToFailAtRunTime) {
  auto file = std::make_shared<SourceFile>("e.tfg", "a = 1\nq = constant(1) / constant(0)\n");
  Graph g;
  Output q = Op(g, "div", {ConstI(g, 1), ConstI(g, 0)}, "q", SourceSpan{file, 2, 5, 2, 32});
  auto o = Optimize(g, {}, {q});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 0);
  EXPECT_EQ(o->fetches[0].node->op_name(), "div");
  Session s(o->graph.get(), {});
  auto r = s.Run({}, o->fetches, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 2);
  EXPECT_NE(r.status().message().find("'q'"), std::string::npos) << r.status().message();
}

TEST_F(GraphOptimizerTest, NonFiniteResultsAreNotFolded) {
  Graph g;
  Output inf = Op(g, "div", {ConstF(g, 1), ConstF(g, 0)}, "inf");
  auto o = Optimize(g, {}, {inf});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 0);
  EXPECT_EQ(o->fetches[0].node->op_name(), "div");
}

TEST_F(GraphOptimizerTest, LargeResultsAreNotFolded) {
  Graph g;
  Output big = AddNode(g, "fill", {ConstF(g, 1)}, {{"dims", std::vector<int64_t>{10}}})->output(0);
  OptimizeOptions options;
  options.max_folded_elements = 5;
  auto o = Optimize(g, {}, {big}, {}, options);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 0);
  EXPECT_EQ(o->fetches[0].node->op_name(), "fill");
  options.max_folded_elements = 10;
  o = Optimize(g, {}, {big}, {}, options);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->stats.folded, 1);
}

TEST_F(GraphOptimizerTest, WhatNoFetchNeedsIsPruned) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({}));
  Output used = Op(g, "neg", {x}, "used");
  Op(g, "exp", {x}, "unused");
  Op(g, "exp", {used}, "unused2");
  auto o = Optimize(g, {x}, {used});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->graph->num_nodes(), 2);
  EXPECT_EQ(o->graph->FindNode("unused"), nullptr);
  EXPECT_EQ(o->stats.pruned, 2);
}

TEST_F(GraphOptimizerTest, OptimizationCanBeTurnedOff) {
  Graph g;
  Output p = Op(g, "mul", {ConstF(g, 2), ConstF(g, 3)});
  Output q = Op(g, "mul", {p, p});
  Output r = Op(g, "mul", {p, p});
  OptimizeOptions off;
  off.constant_folding = false;
  off.common_subexpression_elimination = false;
  auto o = Optimize(g, {}, {q, r}, {}, off);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->graph->num_nodes(), g.num_nodes());
  EXPECT_EQ(o->stats.Summary(), "folded 0 nodes, merged 0, pruned 0");
}

TEST_F(GraphOptimizerTest, RefinedShapesAreKept) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({-1}));
  Output y = Op(g, "neg", {x}, "y");
  ASSERT_TRUE(y.node->RefineOutputShape(0, PartialShape({3})).ok());
  auto o = Optimize(g, {x}, {y});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->fetches[0].shape(), PartialShape({3}));
}

TEST_F(GraphOptimizerTest, ControlCyclesAreReported) {
  Graph g;
  Node* a = AddNode(g, "no_op", {}, {}, "a");
  Node* b = AddNode(g, "no_op", {}, {}, "b");
  b->AddControlInput(a);
  a->AddControlInput(b);
  auto o = Optimize(g, {}, {}, {b});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("cycle"), std::string::npos) << o.status().message();
}

TEST_F(GraphOptimizerTest, BadRunArgumentsAreErrors) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({}));
  auto o = Optimize(g, {}, {Output{x.node, 1}});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "cannot fetch output 1 of placeholder 'x': it has 1 output(s)");
  o = Optimize(g, {x, x}, {x});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "placeholder 'x' is fed more than once");
  Graph other;
  Output y = Placeholder(other, "y", PartialShape({}));
  EXPECT_FALSE(Optimize(g, {}, {y}).ok());
}

TEST_F(GraphOptimizerTest, FetchingAFedOutputGivesTheFedValue) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({}));
  auto o = Optimize(g, {x}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->fetches[0], o->feeds[0]);
  auto r = Run(*o, {Tensor::Scalar<float>(4)});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].scalar<float>(), 4.0f);
}

// A graph a script builds (folding, repeated subexpressions, a gradient)
// computes the same values through the optimized graph as through the
// graph itself.
TEST_F(GraphOptimizerTest, AScriptGraphComputesTheSameOptimized) {
  const char* script =
      "x = placeholder(f32, [3, 2], name=\"x\")\n"
      "w = constant([[1.0, 2.0], [3.0, -1.0]])\n"
      "scale = constant(2.0) * constant(0.5) + constant(1.0)\n"
      "h = relu(x @ w * scale)\n"
      "h2 = relu(x @ w * scale)\n"
      "loss = mean(h * h2) + sum(constant([1.0, 2.0]) * constant([3.0, 4.0]))\n"
      "dx = grad(loss, x)\n";
  InterpreterOptions io;
  io.check_only = true;
  Interpreter interp(io);
  Status built = interp.RunSource("t.tfg", script);
  ASSERT_TRUE(built.ok()) << built.ToString();
  const Graph& g = interp.graph();
  WholeGraphSignature sig = SinkSignature(g);
  // dx and the unused gradients of the constants (loss feeds the gradient).
  ASSERT_EQ(sig.fetches.size(), 5u);
  Output x{g.FindNode("x"), 0};
  Tensor xs = Tensor::FromVector<float>({1, -2, 0.5f, 3, -1, 1}, {3, 2});
  Session plain(&g, {});
  auto expected = plain.Run({{x, xs}}, sig.fetches, sig.targets);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();

  auto o = Optimize(g, {x}, sig.fetches, sig.targets);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_GE(o->stats.folded, 2);  // scale and the constant product
  EXPECT_GE(o->stats.merged, 2);  // the second matmul and what follows it
  auto got = Run(*o, {xs});
  ASSERT_EQ(got.size(), expected->size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(TensorsEqual(got[i], (*expected)[i])) << "fetch " << i;
}

TEST(SinkSignatureTest, UnconsumedNodesAreTheResults) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({}));
  Output y = Op(g, "neg", {x}, "y");
  Node* side = AddNode(g, "no_op", {}, {}, "side");
  Node* gate = AddNode(g, "no_op", {}, {}, "gate");
  side->AddControlInput(gate);
  WholeGraphSignature sig = SinkSignature(g);
  ASSERT_EQ(sig.fetches.size(), 1u);
  EXPECT_EQ(sig.fetches[0], y);
  ASSERT_EQ(sig.targets.size(), 1u);
  EXPECT_EQ(sig.targets[0], side);
}

}  // namespace
}  // namespace tfg
