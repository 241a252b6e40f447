// The convolution fusion pass (interp/runtime/fuse_conv.h) through
// OptimizeGraph and whole runs: which conv2d -> bias_add [-> relu] chains
// become conv2d_bias_activation and which stay apart (a value in between
// fetched or used twice, another device, control edges, f64,
// --check-numerics), the same results as the unfused run with gradients
// built through the chain, and errors at the conv2d's line.
#include "interp/runtime/fuse_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "ops/autodiff/gradients.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

class FuseConvTest : public ::testing::Test {
 protected:
  FuseConvTest() : file_(std::make_shared<SourceFile>("cnn.tfg", std::string(20, '\n'))) {}

  SourceSpan Line(int line) {
    SourceSpan s;
    s.file = file_;
    s.line = s.end_line = line;
    s.col = s.end_col = 1;
    return s;
  }
  Output Placeholder(const std::string& name, PartialShape shape, DType d = DType::kF32) {
    return test::AddNode(g_, "placeholder", {}, {{"dtype", d}, {"shape", std::move(shape)}}, name)->output(0);
  }
  Output Op(const std::string& op, std::vector<Output> in, AttrMap attrs = {}, int line = 0,
            const std::string& device = "") {
    NodeSpec spec;
    spec.op = op;
    spec.inputs = std::move(in);
    spec.attrs = std::move(attrs);
    spec.device = device;
    if (line) spec.span = Line(line);
    auto r = g_.AddNode(std::move(spec));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)->output(0) : Output{};
  }
  // x [?, 8, 8, 3] convolved by f [3, 3, 3, 4] (SAME), then the bias b [4].
  struct Chain {
    Output x, f, b, conv, biased, relu;
  };
  Chain Build(DType d = DType::kF32, const std::string& relu_device = "") {
    Chain c;
    c.x = Placeholder("x", PartialShape({-1, 8, 8, 3}), d);
    c.f = Placeholder("f", PartialShape({3, 3, 3, 4}), d);
    c.b = Placeholder("b", PartialShape({4}), d);
    c.conv = Op("conv2d", {c.x, c.f}, {{"padding", std::string("SAME")}}, 3);
    c.biased = Op("bias_add", {c.conv, c.b}, {}, 4);
    c.relu = Op("relu", {c.biased}, {}, 5, relu_device);
    return c;
  }
  Result<OptimizedGraph> Optimize(std::vector<Output> fetches, std::vector<Node*> targets = {},
                                  bool check_numerics = false) {
    OptimizeOptions options;
    options.check_numerics = check_numerics;
    return OptimizeGraph(g_, {}, fetches, targets, options, &cpu_);
  }
  static int Count(const Graph& g, const std::string& op) {
    int n = 0;
    for (const auto& node : g.nodes()) n += node->op_name() == op;
    return n;
  }
  static const Node* Find(const Graph& g, const std::string& op) {
    for (const auto& node : g.nodes()) {
      if (node->op_name() == op) return node.get();
    }
    return nullptr;
  }
  static Tensor Ramp(TensorShape shape, float scale, float offset) {
    std::vector<float> v(static_cast<size_t>(shape.num_elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>(i * 37) % 101) * scale + offset;
    return Tensor::FromVector(v, std::move(shape));
  }
  std::vector<std::pair<Output, Tensor>> Feeds(const Chain& c, int64_t batch = 5) {
    return {{c.x, Ramp(TensorShape({batch, 8, 8, 3}), 0.02f, -1.0f)},
            {c.f, Ramp(TensorShape({3, 3, 3, 4}), 0.01f, -0.5f)},
            {c.b, Tensor::FromVector(std::vector<float>{0.5f, -0.25f, 0.0f, -2.0f}, TensorShape({4}))}};
  }
  Result<std::vector<Tensor>> Run(std::vector<std::pair<Output, Tensor>> feeds, std::vector<Output> fetches,
                                  bool optimize) {
    SessionOptions o;
    o.optimize = optimize;
    o.intra_op_threads = 2;
    Session s(&g_, o);
    return s.Run(feeds, fetches, {});
  }

  std::shared_ptr<SourceFile> file_;
  Graph g_;
  CpuDevice cpu_{1};
};

TEST_F(FuseConvTest, ConvBiasReluBecomesOneNode) {
  Chain c = Build();
  auto o = Optimize({c.relu});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "conv2d_bias_activation"), 1);
  EXPECT_EQ(Count(*o->graph, "conv2d") + Count(*o->graph, "bias_add") + Count(*o->graph, "relu"), 0);
  EXPECT_EQ(o->stats.fused, 3);
  EXPECT_EQ(o->stats.fused_kernels, 1);
  const Node& fused = *o->fetches[0].node;
  EXPECT_EQ(fused.op_name(), "conv2d_bias_activation");
  EXPECT_EQ(*fused.attr<std::string>("activation"), "relu");
  EXPECT_EQ(*fused.attr<std::string>("padding"), "SAME");
  EXPECT_EQ(fused.output_shapes()[0], PartialShape({-1, 8, 8, 4}));
  EXPECT_EQ(KernelLabel(fused), "conv2d_bias_activation");
}

// Gradients built through the chain before optimizing read only what the
// fused node keeps: the values match the unfused run's.
TEST_F(FuseConvTest, TrainingGraphMatchesTheUnfusedRun) {
  Chain c = Build();
  Output loss = Op("sum", {Op("mul", {c.relu, c.relu})});
  auto grads = AddGradients(g_, {loss}, {c.x, c.f, c.b}, {}, SourceSpan{});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  std::vector<Output> fetches = {loss, (*grads)[0], (*grads)[1], (*grads)[2]};
  auto o = Optimize(fetches);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "conv2d_bias_activation"), 1);
  EXPECT_EQ(Count(*o->graph, "conv2d"), 0);
  EXPECT_EQ(Count(*o->graph, "conv2d_backprop_filter"), 1);
  auto fused = Run(Feeds(c), fetches, true);
  auto plain = Run(Feeds(c), fetches, false);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Tensor &a = (*fused)[i], &b = (*plain)[i];
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t k = 0; k < a.num_elements(); ++k) {
      const float u = a.data<float>()[k], v = b.data<float>()[k];
      EXPECT_NEAR(u, v, 1e-5 * std::max(1.0f, std::fabs(v))) << "fetch " << i << " element " << k;
    }
  }
}

TEST_F(FuseConvTest, FetchedBiasAddEndsTheChainThere) {
  Chain c = Build();
  auto o = Optimize({c.relu, c.biased});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const Node* fused = Find(*o->graph, "conv2d_bias_activation");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(*fused->attr<std::string>("activation"), "none");
  EXPECT_EQ(o->fetches[1].node, fused);
  ASSERT_EQ(o->fetches[0].node->op_name(), "relu");
  EXPECT_EQ(o->fetches[0].node->inputs()[0].node, fused);
}

TEST_F(FuseConvTest, BiasAddUsedTwiceKeepsTheRelu) {
  Chain c = Build();
  Output other = Op("sigmoid", {c.biased});
  auto o = Optimize({c.relu, other});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const Node* fused = Find(*o->graph, "conv2d_bias_activation");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(*fused->attr<std::string>("activation"), "none");
  EXPECT_EQ(Count(*o->graph, "relu"), 1);
}

TEST_F(FuseConvTest, ConvValueSeenElsewhereIsNotFused) {
  Chain c = Build();
  auto fetched = Optimize({c.relu, c.conv});
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  EXPECT_EQ(Count(*fetched->graph, "conv2d_bias_activation"), 0);
  EXPECT_EQ(Count(*fetched->graph, "conv2d"), 1);
  Output twice = Op("mul", {c.conv, c.conv});
  auto used = Optimize({c.relu, twice});
  ASSERT_TRUE(used.ok()) << used.status().ToString();
  EXPECT_EQ(Count(*used->graph, "conv2d_bias_activation"), 0);
}

TEST_F(FuseConvTest, ConvFeedingBothBiasAddOperandsIsNotFused) {
  Output x = Placeholder("x", PartialShape({1, 1, 1, 1}));
  Output f = Placeholder("f", PartialShape({1, 1, 1, 1}));
  Output conv = Op("conv2d", {x, f});
  Output y = Op("bias_add", {conv, Op("reshape", {conv}, {{"shape", std::vector<int64_t>{1}}})});
  auto o = Optimize({y});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "conv2d_bias_activation"), 0);
}

TEST_F(FuseConvTest, ADifferentDeviceEndsTheChain) {
  Chain c = Build(DType::kF32, "/cpu:0");
  auto o = Optimize({c.relu});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  const Node* fused = Find(*o->graph, "conv2d_bias_activation");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(*fused->attr<std::string>("activation"), "none");
  EXPECT_EQ(Count(*o->graph, "relu"), 1);
}

TEST_F(FuseConvTest, ControlEdgesAndCheckNumericsLeaveTheChainAlone) {
  Chain c = Build();
  Node* after = test::AddNode(g_, "no_op", {});
  NodeSpec spec;
  spec.op = "identity";
  spec.inputs = {c.relu};
  spec.control_inputs = {c.conv.node};
  auto tied = g_.AddNode(std::move(spec));
  ASSERT_TRUE(tied.ok());
  auto o = Optimize({(*tied)->output(0)}, {after});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "conv2d_bias_activation"), 0);

  auto numerics = Optimize({c.relu}, {}, /*check_numerics=*/true);
  ASSERT_TRUE(numerics.ok()) << numerics.status().ToString();
  EXPECT_EQ(Count(*numerics->graph, "conv2d_bias_activation"), 0);
}

TEST_F(FuseConvTest, F64IsNotFused) {
  Chain c = Build(DType::kF64);
  auto o = Optimize({c.relu});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "conv2d_bias_activation"), 0);
}

TEST_F(FuseConvTest, ARunTimeShapeErrorPointsAtTheConv2DLine) {
  Output x = Placeholder("x", PartialShape::Unknown());
  Output f = Placeholder("f", PartialShape({3, 3, 3, 4}));
  Output b = Placeholder("b", PartialShape({4}));
  Output y = Op("relu", {Op("bias_add", {Op("conv2d", {x, f}, {}, 7), b}, {}, 8)}, {}, 9);
  auto o = Optimize({y});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(Count(*o->graph, "conv2d_bias_activation"), 1);
  std::vector<std::pair<Output, Tensor>> feeds = {{x, Ramp(TensorShape({2, 6, 6, 2}), 0.1f, 0.0f)},
                                                  {f, Ramp(TensorShape({3, 3, 3, 4}), 0.1f, 0.0f)},
                                                  {b, Ramp(TensorShape({4}), 0.1f, 0.0f)}};
  auto r = Run(feeds, {y}, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 7) << r.status().ToString();
  EXPECT_NE(r.status().message().find("conv2d: input has 2 channels but the filter expects 3"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace tfg
