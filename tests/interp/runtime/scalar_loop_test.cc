// Loops as register machines (interp/runtime/scalar_loop.h): which frames compile,
// and the sums they give on every path a loop can take (registers, kernels
// on one thread, kernels scheduled). Expected values are worked out by hand.
#include "interp/runtime/scalar_loop.h"

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/plan.h"
#include "interp/runtime/session.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;
using test::BuildSumLoop;
using test::Const;
using test::LoopGraph;
using test::ScalarI64;

Node* Placeholder(Graph& g, PartialShape shape) {
  return AddNode(g, "placeholder", {}, {{"dtype", DType::kI64}, {"shape", std::move(shape)}});
}

std::shared_ptr<Plan> PlanFor(const Graph& g, const LoopGraph& loop) {
  CpuDevice device(1);
  auto plan = BuildPlan(g, {}, {loop.i, loop.s}, {}, &device);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : nullptr;
}

TEST(ScalarLoop, CompilesALoopOfScalars) {
  Graph g;
  LoopGraph loop = BuildSumLoop(g, Placeholder(g, PartialShape::Scalar())->output(0), "loop", 1);
  auto plan = PlanFor(g, loop);
  ASSERT_EQ(plan->frames.size(), 2u);
  EXPECT_TRUE(plan->frames[1].sequential);
  EXPECT_NE(plan->frames[1].scalar, nullptr);
}

TEST(ScalarLoop, LeavesLoopsOfVectorsToTheKernels) {
  Graph g;
  Output s0 = Const(g, Tensor::Vector<int64_t>({10, 20}));
  LoopGraph loop = BuildSumLoop(g, Placeholder(g, PartialShape::Scalar())->output(0), "loop", 1, s0);
  auto plan = PlanFor(g, loop);
  ASSERT_EQ(plan->frames.size(), 2u);
  EXPECT_TRUE(plan->frames[1].sequential);  // small: still one thread, with kernels
  EXPECT_EQ(plan->frames[1].scalar, nullptr);
}

TEST(ScalarLoop, LeavesLoopsOfUnknownShapeToTheScheduler) {
  Graph g;
  LoopGraph loop = BuildSumLoop(g, Placeholder(g, PartialShape::Unknown())->output(0), "loop", 1);
  auto plan = PlanFor(g, loop);
  ASSERT_EQ(plan->frames.size(), 2u);
  EXPECT_FALSE(plan->frames[1].sequential);
  EXPECT_EQ(plan->frames[1].scalar, nullptr);
}

// The register machine, and the kernels it stands in for (which
// --check-numerics and --stats use), give the same sums.
TEST(ScalarLoop, RegistersAndKernelsAgree) {
  for (bool check_numerics : {false, true}) {
    Graph g;
    Node* n = Placeholder(g, PartialShape::Scalar());
    LoopGraph loop = BuildSumLoop(g, n->output(0), "loop", 1);
    SessionOptions options{2, 2};
    options.check_numerics = check_numerics;
    Session session(&g, options);
    for (int64_t count : {0, 1, 7, 100000}) {
      auto r = session.Run({{n->output(0), Tensor::Scalar<int64_t>(count)}}, {loop.i, loop.s}, {});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(ScalarI64((*r)[0]), count);
      EXPECT_EQ(ScalarI64((*r)[1]), count * (count - 1) / 2);
    }
  }
}

TEST(ScalarLoop, VectorLoopSumsOnTheKernelPath) {
  Graph g;
  Node* n = Placeholder(g, PartialShape::Scalar());
  LoopGraph loop = BuildSumLoop(g, n->output(0), "loop", 1, Const(g, Tensor::Vector<int64_t>({10, 20})));
  Session session(&g, SessionOptions{2, 2});
  auto r = session.Run({{n->output(0), Tensor::Scalar<int64_t>(5)}}, {loop.s}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int64_t* s = (*r)[0].data<int64_t>();
  EXPECT_EQ(s[0], 20);  // 10 + 0 + 1 + 2 + 3 + 4
  EXPECT_EQ(s[1], 30);
}

}  // namespace
}  // namespace tfg
