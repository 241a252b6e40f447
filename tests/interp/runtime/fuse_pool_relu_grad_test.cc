// The pooling fusion pass (interp/runtime/fuse_pool_relu_grad.h) through
// OptimizeGraph and whole runs: the gradient of max_pool over a relu
// becomes one max_pool_relu_grad node with the unfused run's bits (on
// values with ties, zeros and negatives, so that many windows' maximum is
// 0), and stays apart where the max_pool_grad's value is fetched, the
// relu_grad masks by another tensor, or under --check-numerics. With the
// forward max_pool in the plan, the pair becomes max_pool_with_taps and
// max_pool_relu_grad_from_taps, with the same bits.
#include "interp/runtime/fuse_pool_relu_grad.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "ops/autodiff/gradients.h"
#include "tests/interp/runtime/graph_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

class FusePoolReluGradTest : public ::testing::Test {
 protected:
  Output Placeholder(const std::string& name, PartialShape shape) {
    return test::AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", std::move(shape)}}, name)
        ->output(0);
  }
  Output Op(const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
    NodeSpec spec;
    spec.op = op;
    spec.inputs = std::move(in);
    spec.attrs = std::move(attrs);
    auto r = g_.AddNode(std::move(spec));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)->output(0) : Output{};
  }
  // x [?, 6, 6, 5] -> relu -> max_pool (3x3 windows, stride 2, SAME: they
  // overlap) -> loss = sum(pooled * w), and d loss / d x.
  struct Net {
    Output x, w, relu, pooled, loss, dx;
  };
  static AttrMap Window() {
    return {{"ksize", std::vector<int64_t>{3, 3}},
            {"strides", std::vector<int64_t>{2, 2}},
            {"padding", std::string("SAME")}};
  }
  Net Build() {
    Net n;
    n.x = Placeholder("x", PartialShape({-1, 6, 6, 5}));
    n.w = Placeholder("w", PartialShape({-1, 3, 3, 5}));
    n.relu = Op("relu", {n.x});
    n.pooled = Op("max_pool", {n.relu}, Window());
    n.loss = Op("sum", {Op("mul", {n.pooled, n.w})});
    auto grads = AddGradients(g_, {n.loss}, {n.x}, {}, SourceSpan{});
    EXPECT_TRUE(grads.ok()) << grads.status().ToString();
    if (grads.ok()) n.dx = (*grads)[0];
    return n;
  }
  // The gradient alone, as the gradient of a loss fed from outside would
  // be: w stands for d loss / d pooled, and no max_pool is in the plan.
  Net BuildGradientOnly() {
    Net n;
    n.x = Placeholder("x", PartialShape({-1, 6, 6, 5}));
    n.w = Placeholder("w", PartialShape({-1, 3, 3, 5}));
    n.relu = Op("relu", {n.x});
    n.dx = Op("relu_grad", {Op("max_pool_grad", {n.relu, n.w}, Window()), n.relu});
    return n;
  }
  Result<OptimizedGraph> Optimize(std::vector<Output> fetches, bool check_numerics = false) {
    OptimizeOptions options;
    options.check_numerics = check_numerics;
    return OptimizeGraph(g_, {}, fetches, {}, options, &cpu_);
  }
  static int Count(const Graph& g, const std::string& op) {
    int n = 0;
    for (const auto& node : g.nodes()) n += node->op_name() == op;
    return n;
  }
  // Few distinct values, half of them <= 0.
  static Tensor Values(TensorShape shape, int64_t mul, int64_t mod, float offset) {
    std::vector<float> v(static_cast<size_t>(shape.num_elements()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int64_t>(i) * mul % mod) + offset;
    return Tensor::FromVector(v, std::move(shape));
  }
  Result<std::vector<Tensor>> Run(const Net& n, std::vector<Output> fetches, bool optimize) {
    SessionOptions o;
    o.optimize = optimize;
    o.intra_op_threads = 2;
    Session s(&g_, o);
    return s.Run({{n.x, Values(TensorShape({3, 6, 6, 5}), 7, 5, -2.0f)},
                  {n.w, Values(TensorShape({3, 3, 3, 5}), 11, 13, -6.5f)}},
                 fetches, {});
  }

  Graph g_;
  CpuDevice cpu_{1};
};

TEST_F(FusePoolReluGradTest, ThePairBecomesOneNodeWithTheUnfusedBits) {
  Net n = BuildGradientOnly();
  auto o = Optimize({n.dx});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 1);
  EXPECT_EQ(Count(*o->graph, "max_pool_grad") + Count(*o->graph, "relu_grad"), 0);
  EXPECT_EQ(o->fetches[0].node->op_name(), "max_pool_relu_grad");
  EXPECT_EQ(o->fetches[0].node->output_shapes()[0], PartialShape({-1, 6, 6, 5}));
  auto fused = Run(n, {n.dx}, true);
  auto plain = Run(n, {n.dx}, false);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  const Tensor &a = (*fused)[0], &b = (*plain)[0];
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_EQ(std::memcmp(a.data<float>(), b.data<float>(), static_cast<size_t>(a.num_elements()) * 4), 0);
  // Not all zero: some windows' maximum is positive.
  int nonzero = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) nonzero += a.data<float>()[i] != 0.0f;
  EXPECT_GT(nonzero, 10);
}

// The bias gradient of a layer below the pool, bias_add_grad(relu_grad),
// becomes the fused node's second output: the channel sums of its first,
// as summed here in double from the fused run's dx.
TEST_F(FusePoolReluGradTest, ABiasGradientOfTheReluGradIsItsChannelSums) {
  Net n = BuildGradientOnly();
  const Output db = Op("bias_add_grad", {n.dx});
  auto o = Optimize({n.dx, db});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 1);
  EXPECT_EQ(Count(*o->graph, "bias_add_grad"), 0);
  ASSERT_EQ(o->fetches[1].node, o->fetches[0].node);
  EXPECT_EQ(o->fetches[1].index, 1);
  EXPECT_EQ(o->fetches[1].node->output_shapes()[1], PartialShape({5}));
  auto fused = Run(n, {n.dx, db}, true);
  auto plain = Run(n, {n.dx, db}, false);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  const Tensor& dx = (*fused)[0];
  std::vector<double> sums(5, 0.0);
  for (int64_t i = 0; i < dx.num_elements(); ++i) sums[static_cast<size_t>(i % 5)] += dx.data<float>()[i];
  test::ExpectTensorNear((*fused)[1], sums, TensorShape({5}), 1e-5);
  test::ExpectTensorNear((*plain)[1], sums, TensorShape({5}), 1e-5);
}

TEST_F(FusePoolReluGradTest, AFetchedPoolGradientIsNotFused) {
  Net n = Build();
  Node* relu_grad = n.dx.node;
  ASSERT_EQ(relu_grad->op_name(), "relu_grad");
  auto o = Optimize({n.dx, relu_grad->inputs()[0]});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 0);
  EXPECT_EQ(Count(*o->graph, "max_pool_grad"), 1);
}

TEST_F(FusePoolReluGradTest, AReluGradMaskingByAnotherTensorIsNotFused) {
  Net n = Build();
  const Output routed = n.dx.node->inputs()[0];
  const Output other = Op("relu_grad", {routed, n.x});  // masks by x, not by the pool's input
  auto o = Optimize({other});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 0);
}

// With the forward max_pool in the plan too (the loss is fetched), the
// max_pool keeps its windows' argmax bytes and the fused gradient routes by
// them: the unfused run's bits still, for both the loss and dx.
TEST_F(FusePoolReluGradTest, WithItsForwardPoolTheGradientRoutesByTheKeptTaps) {
  Net n = Build();
  const Output db = Op("bias_add_grad", {n.dx});
  auto o = Optimize({n.loss, n.dx, db});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_with_taps"), 1);
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad_from_taps"), 1);
  EXPECT_EQ(Count(*o->graph, "max_pool") + Count(*o->graph, "max_pool_relu_grad") + Count(*o->graph, "max_pool_grad"),
            0);
  EXPECT_EQ(o->fetches[1].node->op_name(), "max_pool_relu_grad_from_taps");
  EXPECT_EQ(o->fetches[2].node, o->fetches[1].node);
  EXPECT_EQ(o->fetches[2].index, 1);
  auto fused = Run(n, {n.loss, n.dx, db}, true);
  auto plain = Run(n, {n.loss, n.dx, db}, false);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const Tensor &a = (*fused)[i], &b = (*plain)[i];
    ASSERT_EQ(a.shape(), b.shape());
    EXPECT_EQ(std::memcmp(a.data<float>(), b.data<float>(), static_cast<size_t>(a.num_elements()) * 4), 0);
  }
  const Tensor& dx = (*fused)[1];
  std::vector<double> sums(5, 0.0);
  for (int64_t i = 0; i < dx.num_elements(); ++i) sums[static_cast<size_t>(i % 5)] += dx.data<float>()[i];
  test::ExpectTensorNear((*fused)[2], sums, TensorShape({5}), 1e-5);
}

// A max_pool of another window over the same relu is not the gradient's.
TEST_F(FusePoolReluGradTest, AForwardPoolOfAnotherWindowKeepsNoTaps) {
  Net n = BuildGradientOnly();
  const Output other = Op("max_pool", {n.relu}, {{"ksize", std::vector<int64_t>{2, 2}},
                                                 {"strides", std::vector<int64_t>{2, 2}},
                                                 {"padding", std::string("SAME")}});
  auto o = Optimize({n.dx, other});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 1);
  EXPECT_EQ(Count(*o->graph, "max_pool"), 1);
  EXPECT_EQ(Count(*o->graph, "max_pool_with_taps"), 0);
}

TEST_F(FusePoolReluGradTest, CheckNumericsLeavesThePairAlone) {
  Net n = Build();
  auto o = Optimize({n.dx}, /*check_numerics=*/true);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "max_pool_relu_grad"), 0);
  EXPECT_EQ(Count(*o->graph, "max_pool_grad"), 1);
}

}  // namespace
}  // namespace tfg
