// The executor's control flow (interp/runtime/executor_frames.cc), on graphs built
// node by node: dead branches, merges, loop frames, parallel iterations,
// nested loops. Expected values are computed by hand.
#include <gtest/gtest.h>

#include "tests/interp/runtime/graph_test_util.h"
#include "interp/runtime/session.h"

namespace tfg {
namespace {

using test::AddNode;
using test::BuildSumLoop;
using test::Const;
using test::LoopGraph;
using test::ScalarI64;

// With a scalar `n` the loop is small enough to run on one thread
// (executor_sequential.cc); with `n` of unknown shape the frame's nodes are
// scheduled one by one, iterations overlapping. Both must agree.
TEST(ExecutorFrames, WhileLoopSumsForEveryParallelism) {
  for (const PartialShape& n_shape : {PartialShape::Scalar(), PartialShape::Unknown()})
  for (int64_t parallel : {1, 2, 10}) {
    Graph g;
    Node* n = AddNode(g, "placeholder", {}, {{"dtype", DType::kI64}, {"shape", n_shape}});
    LoopGraph loop = BuildSumLoop(g, n->output(0), "loop", parallel);
    Session session(&g, SessionOptions{2, 2});
    for (int64_t count : {0, 1, 5, 1000}) {
      auto r = session.Run({{n->output(0), Tensor::Scalar<int64_t>(count)}}, {loop.i, loop.s}, {});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(ScalarI64((*r)[0]), count) << "parallel " << parallel;
      EXPECT_EQ(ScalarI64((*r)[1]), count * (count - 1) / 2) << "parallel " << parallel;
    }
  }
}

TEST(ExecutorFrames, SwitchKillsTheUntakenBranchAndMergeTakesTheLiveOne) {
  Graph g;
  Node* p = AddNode(g, "placeholder", {}, {{"dtype", DType::kBool}, {"shape", PartialShape::Scalar()}});
  Output x = Const(g, Tensor::Scalar<float>(3.0f));
  Node* sw = AddNode(g, "switch", {x, p->output(0)});
  Node* doubled = AddNode(g, "add", {sw->output(1), sw->output(1)});  // true: 6
  Node* negated = AddNode(g, "neg", {sw->output(0)});                  // false: -3
  Node* merge = AddNode(g, "merge", {negated->output(0), doubled->output(0)});
  Session session(&g, SessionOptions{2, 2});
  for (bool pred : {true, false}) {
    auto r = session.Run({{p->output(0), Tensor::Scalar<bool>(pred)}}, {merge->output(0), merge->output(1)}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].data<float>()[0], pred ? 6.0f : -3.0f);
    EXPECT_EQ((*r)[1].data<int32_t>()[0], pred ? 1 : 0);
  }
  // Fetching a tensor of the branch that did not run is an error, not garbage.
  auto dead = session.Run({{p->output(0), Tensor::Scalar<bool>(false)}}, {doubled->output(0)}, {});
  ASSERT_FALSE(dead.ok());
  EXPECT_NE(dead.status().message().find("did not run"), std::string::npos) << dead.status().ToString();
}

TEST(ExecutorFrames, NestedLoopsGetAFrameForEveryOuterIteration) {
  // total = sum over a in [0, 4) of (sum over b in [0, a) of b) = 0 + 0 + 1 + 3 = 4, with the
  // inner loop's bound `a` coming from the outer loop.
  Graph g;
  AttrMap outer{{"frame_name", std::string("outer")}, {"is_constant", false}, {"parallel_iterations", int64_t{4}}};
  AttrMap outer_const = outer;
  outer_const["is_constant"] = true;
  Output zero = Const(g, Tensor::Scalar<int64_t>(0));
  Output one = Const(g, Tensor::Scalar<int64_t>(1));
  Output four = Const(g, Tensor::Scalar<int64_t>(4));
  Node* enter_a = AddNode(g, "enter", {zero}, outer);
  Node* enter_t = AddNode(g, "enter", {zero}, outer);
  Node* enter_four = AddNode(g, "enter", {four}, outer_const);
  Node* enter_one = AddNode(g, "enter", {one}, outer_const);
  Node* merge_a = AddNode(g, "merge", {enter_a->output(0), enter_a->output(0)});
  Node* merge_t = AddNode(g, "merge", {enter_t->output(0), enter_t->output(0)});
  Node* cond = AddNode(g, "loop_cond", {AddNode(g, "less", {merge_a->output(0), enter_four->output(0)})->output(0)});
  Node* switch_a = AddNode(g, "switch", {merge_a->output(0), cond->output(0)});
  Node* switch_t = AddNode(g, "switch", {merge_t->output(0), cond->output(0)});
  Node* exit_t = AddNode(g, "exit", {switch_t->output(0)});
  // The inner loop, started once per outer iteration, sums b < a.
  LoopGraph inner = BuildSumLoop(g, switch_a->output(1), "inner", 3);
  // The inner loop's zeros come from the root frame: they must enter the outer frame first.
  std::vector<Node*> from_root;
  for (const auto& node : g.nodes()) {
    if (node->op_name() != "enter" || *node->attr<std::string>("frame_name") != "inner") continue;
    if (node->inputs()[0].node->op_name() == "constant") from_root.push_back(node.get());
  }
  for (Node* node : from_root) {
    Node* hop = AddNode(g, "enter", {node->inputs()[0]}, outer_const);
    EXPECT_TRUE(node->ReplaceInput(0, hop->output(0)).ok());
  }
  Node* next_a = AddNode(g, "next_iteration", {AddNode(g, "add", {switch_a->output(1), enter_one->output(0)})->output(0)});
  Node* next_t = AddNode(g, "next_iteration", {AddNode(g, "add", {switch_t->output(1), inner.s})->output(0)});
  ASSERT_TRUE(merge_a->ReplaceInput(1, next_a->output(0)).ok());
  ASSERT_TRUE(merge_t->ReplaceInput(1, next_t->output(0)).ok());
  Session session(&g, SessionOptions{2, 2});
  auto r = session.Run({}, {exit_t->output(0)}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(ScalarI64((*r)[0]), 4);
}

}  // namespace
}  // namespace tfg
