// The elementwise fusion pass (interp/runtime/fuse_elementwise.h) through
// OptimizeGraph and whole runs: what it fuses and what it leaves apart, the
// same bytes as the unfused run, and errors at the member's line.
#include "interp/runtime/fuse_elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/runtime/session.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

class FuseElementwiseTest : public ::testing::Test {
 protected:
  FuseElementwiseTest() : file_(std::make_shared<SourceFile>("chain.tfg", std::string(20, '\n'))) {}

  SourceSpan Line(int line) {
    SourceSpan s;
    s.file = file_;
    s.line = s.end_line = line;
    s.col = s.end_col = 1;
    return s;
  }
  Output X(DType d = DType::kF32) {
    return AddNode(g_, "placeholder", {}, {{"dtype", d}, {"shape", PartialShape::Unknown()}}, "x")->output(0);
  }
  Output C(float v) { return test::Const(g_, Tensor::Scalar<float>(v)); }
  Output Op(const std::string& op, std::vector<Output> in, int line = 0, const std::string& name = "") {
    return AddNode(g_, op, std::move(in), {}, name, line ? Line(line) : SourceSpan{})->output(0);
  }
  // y = ((x*1.5+0.25)*x-0.5)*0.75+x; y = y*y+1: the 8-op chain.
  // `first` in place of 1.5 makes a chain CSE keeps apart from the others.
  Output Chain(Output x, float first = 1.5f) {
    Output y = Op("mul", {x, C(first)});
    y = Op("add", {y, C(0.25f)});
    y = Op("mul", {y, x});
    y = Op("sub", {y, C(0.5f)});
    y = Op("mul", {y, C(0.75f)});
    y = Op("add", {y, x});
    y = Op("mul", {y, y});
    return Op("add", {y, C(1.0f)});
  }
  Output Reshape(Output x, std::vector<int64_t> shape) {
    return AddNode(g_, "reshape", {x}, {{"shape", std::move(shape)}})->output(0);
  }
  Result<OptimizedGraph> Optimize(std::vector<Output> fetches, std::vector<Output> feeds = {}) {
    return OptimizeGraph(g_, feeds, fetches, {}, {}, &cpu_);
  }
  static int Count(const Graph& g, const std::string& op) {
    int n = 0;
    for (const auto& node : g.nodes()) n += node->op_name() == op;
    return n;
  }
  Result<std::vector<Tensor>> Run(std::vector<std::pair<Output, Tensor>> feeds, std::vector<Output> fetches,
                                  bool optimize, bool check_numerics = false) {
    SessionOptions o;
    o.optimize = optimize;
    o.check_numerics = check_numerics;
    o.intra_op_threads = 2;
    Session s(&g_, o);
    return s.Run(feeds, fetches, {});
  }
  // Fused (optimized) and unfused runs give the same bytes.
  void ExpectSame(std::vector<std::pair<Output, Tensor>> feeds, std::vector<Output> fetches) {
    auto fused = Run(feeds, fetches, true);
    auto plain = Run(feeds, fetches, false);
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    ASSERT_TRUE(plain.ok()) << plain.status().ToString();
    for (size_t i = 0; i < fetches.size(); ++i) {
      const Tensor &a = (*fused)[i], &b = (*plain)[i];
      ASSERT_EQ(a.shape(), b.shape());
      EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.bytes()), 0) << "fetch " << i;
    }
  }
  static Tensor Ramp(int64_t n, float scale) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * scale - 3.0f;
    return Tensor::FromVector(v, TensorShape({n}));
  }

  std::shared_ptr<SourceFile> file_;
  Graph g_;
  CpuDevice cpu_{1};
};

TEST_F(FuseElementwiseTest, TheEightOpChainBecomesOneKernelWithTheSameBytes) {
  Output x = X();
  Output y = Chain(x);
  auto o = Optimize({y}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  EXPECT_EQ(Count(*o->graph, "mul") + Count(*o->graph, "add") + Count(*o->graph, "sub"), 0);
  EXPECT_EQ(o->stats.fused, 8);
  EXPECT_EQ(o->stats.fused_kernels, 1);
  EXPECT_EQ(KernelLabel(*o->fetches[0].node), "fused_elementwise[mul+add+mul+sub+mul+add+mul+add]");
  // Not a multiple of the block: the last block is partial.
  ExpectSame({{x, Ramp(100003, 0.01f)}}, {y});
  // x = 2: ((3+0.25)*2-0.5)*0.75+2 = 6.5; 6.5*6.5+1 = 43.25, by hand.
  auto r = Run({{x, Tensor::FromVector(std::vector<float>(5000, 2.0f), TensorShape({5000}))}}, {y}, true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].data<float>()[4999], 43.25f);
}

TEST_F(FuseElementwiseTest, ReductionsOfTheChainAddInTheKernelsOrder) {
  Output x = X();
  Output y = Chain(x);
  Output all = AddNode(g_, "sum", {y}, {})->output(0);
  Output x2 = AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({-1, 5003})}})->output(0);
  Output mean_rows = AddNode(g_, "mean", {Chain(x2)}, {{"axis", std::vector<int64_t>{-1}}})->output(0);
  Output max_rows =
      AddNode(g_, "max", {Chain(x2, 2.5f)}, {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}})->output(0);
  auto o = Optimize({all}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  EXPECT_EQ(Count(*o->graph, "sum"), 0);
  // 100060 = 20 rows of 5003; over 3 parts of 2^15 for the whole sum.
  ExpectSame({{x, Ramp(100060, 0.001f)}}, {all});
  auto rows = Optimize({mean_rows, max_rows}, {x2});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(Count(*rows->graph, "fused_elementwise"), 2);
  EXPECT_EQ(Count(*rows->graph, "mean") + Count(*rows->graph, "max"), 0);
  Tensor xs = Ramp(20 * 5003, 0.001f);
  ExpectSame({{x2, Tensor::FromVector(std::vector<float>(xs.data<float>(), xs.data<float>() + 20 * 5003),
                                      TensorShape({20, 5003}))}},
             {mean_rows, max_rows});
}

TEST_F(FuseElementwiseTest, RowsOfSeveralRowBlocksAreReducedInTheKernelsOrder) {
  // 9000 = two whole row blocks of 4096, each made in pieces, and 808 more.
  Output x = AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({-1, 9000})}})->output(0);
  Output sum_rows = AddNode(g_, "sum", {Chain(x)}, {{"axis", std::vector<int64_t>{1}}})->output(0);
  Output min_rows = AddNode(g_, "min", {Chain(x, 0.5f)}, {{"axis", std::vector<int64_t>{-1}}})->output(0);
  auto o = Optimize({sum_rows, min_rows}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 2);
  EXPECT_EQ(Count(*o->graph, "sum") + Count(*o->graph, "min"), 0);
  Tensor xs = Ramp(3 * 9000, 0.0007f);
  ExpectSame({{x, Tensor::FromVector(std::vector<float>(xs.data<float>(), xs.data<float>() + 3 * 9000),
                                     TensorShape({3, 9000}))}},
             {sum_rows, min_rows});
}

TEST_F(FuseElementwiseTest, ASumOverTheFirstAxisIsNotFusedButStillAgrees) {
  Output x = X();
  Output m = Reshape(x, {100, -1});
  Output y = Op("add", {Op("mul", {m, C(3.0f)}), C(1.0f)});
  Output s = AddNode(g_, "sum", {y}, {{"axis", std::vector<int64_t>{0}}})->output(0);
  auto o = Optimize({s}, {x});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Count(*o->graph, "sum"), 1);
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  ExpectSame({{x, Ramp(100 * 80, 0.01f)}}, {s});
}

TEST_F(FuseElementwiseTest, FetchedIntermediatesAndControlEdgesSplitGroups) {
  Output x = X();
  Output a = Op("mul", {x, C(2.0f)}, 0, "a");
  Output b = Op("add", {a, C(1.0f)}, 0, "b");
  Output c = Op("exp", {b}, 0, "c");
  Output d = Op("neg", {c}, 0, "d");
  // d runs only after a no_op: it keeps its control edge, unfused.
  Node* gate = AddNode(g_, "no_op", {});
  d.node->AddControlInput(gate);
  auto o = Optimize({b, d}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  // {a, b} is one group (b fetched is its result); c alone is no group; d stays.
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  EXPECT_EQ(Count(*o->graph, "exp"), 1);
  EXPECT_EQ(Count(*o->graph, "neg"), 1);
  ExpectSame({{x, Ramp(9000, 0.01f)}}, {b, d});
}

TEST_F(FuseElementwiseTest, SmallKnownShapesAreLeftToTheExecutor) {
  Output x = AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({64, 64})}})->output(0);
  Output y = Chain(x);
  auto o = Optimize({y}, {x});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 0);
}

TEST_F(FuseElementwiseTest, BroadcastingWhereAndCastInOneGroup) {
  Output x = X();
  Output m = Reshape(x, {-1, 50});
  Output bias = test::Const(g_, Ramp(50, 0.37f));
  Output z = Op("add", {m, bias});
  Output pos = Op("greater", {z, C(0.0f)});
  Output r = Op("where", {pos, Op("log", {z}), Op("neg", {z})});
  Output i = AddNode(g_, "cast", {Op("mul", {r, C(100.0f)})}, {{"DstT", DType::kI32}})->output(0);
  auto o = Optimize({i}, {x});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  EXPECT_EQ(o->stats.fused, 7);
  ExpectSame({{x, Ramp(50 * 200, 0.013f)}}, {i});
}

TEST_F(FuseElementwiseTest, ClipByValueJoinsAGroupEndingInASum) {
  Output x = X();
  Output m = Reshape(x, {-1, 40});
  Output lo = test::Const(g_, Ramp(40, 0.1f));  // a row of lower bounds, -3 to 0.9
  Output c = AddNode(g_, "clip_by_value", {Op("mul", {m, C(2.0f)}), lo, C(1.5f)})->output(0);
  Output y = Op("add", {c, C(0.5f)});
  Output total = AddNode(g_, "sum", {y}, {})->output(0);
  auto o = Optimize({y, total}, {x});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(Count(*o->graph, "clip_by_value"), 0);
  EXPECT_EQ(Count(*o->graph, "fused_elementwise"), 1);
  Tensor xs = Ramp(40 * 300, 0.0071f);
  xs.data<float>()[7] = NAN;
  xs.data<float>()[8] = INFINITY;
  xs.data<float>()[9] = -INFINITY;
  ExpectSame({{x, xs}}, {y, total});
  // x = 0.25 in column 0: 2 * 0.25 = 0.5 lies in [-3, 1.5], then + 0.5 = 1, by hand;
  // x = 1 in column 1: 2 clipped to 1.5, then 2; x = 0.25 in column 39:
  // 0.5 raised to its bound 0.9, then 1.4.
  std::vector<float> v(40 * 200, 0.25f);
  v[1] = 1.0f;
  auto r = Run({{x, Tensor::FromVector(v, TensorShape({40 * 200}))}}, {y}, true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].data<float>()[0], 1.0f);
  EXPECT_EQ((*r)[0].data<float>()[1], 2.0f);
  const float bound39 = 39.0f * 0.1f - 3.0f;  // Ramp's element 39, about 0.9
  EXPECT_EQ((*r)[0].data<float>()[39], bound39 + 0.5f);
}

TEST_F(FuseElementwiseTest, IntegerDivisionByZeroFailsAtTheMembersLine) {
  Output x = X(DType::kI32);
  Output one = test::Const(g_, Tensor::Scalar<int32_t>(1));
  Output d = Op("sub", {x, one}, 3, "d");
  Output q = Op("div", {Op("add", {x, one}, 4, "s"), d}, 7, "q");
  Output y = Op("mul", {q, one}, 9, "y");
  std::vector<int32_t> v(6000, 5);
  v[4321] = 1;  // d = 0 there
  auto r = Run({{x, Tensor::FromVector(v, TensorShape({6000}))}}, {y}, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 7) << r.status().ToString();
  EXPECT_NE(r.status().message().find("div 'q'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("integer division by zero"), std::string::npos) << r.status().message();
}

TEST_F(FuseElementwiseTest, CheckNumericsNamesTheMemberThatMadeTheNaNEvenWhenLaterMasked) {
  Output x = X();
  Output l = Op("log", {x}, 5, "l");
  Output pos = Op("greater", {x, C(0.0f)}, 6, "pos");
  Output y = Op("where", {pos, l, C(0.0f)}, 8, "y");
  Output z = Op("add", {y, C(1.0f)}, 9, "z");
  Tensor xs = Ramp(5000, 0.01f);  // from -3: log makes NaN where x < 0
  auto quiet = Run({{x, xs}}, {z}, true);
  ASSERT_TRUE(quiet.ok());
  auto r = Run({{x, xs}}, {z}, true, /*check_numerics=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 5) << r.status().ToString();
  EXPECT_NE(r.status().message().find("log 'l' produced NaN"), std::string::npos) << r.status().message();
  // As unfused: the same node and line.
  auto plain = Run({{x, xs}}, {z}, false, true);
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().span().line, 5);
}

}  // namespace
}  // namespace tfg
