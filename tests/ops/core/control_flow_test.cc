#include "ops/core/control_flow.h"

#include <gtest/gtest.h>

#include <set>

#include "ops/core/op_registry.h"
#include "ops/core/tensor.h"

namespace tfg {
namespace control_flow_test {

Node* Add(Graph& g, const std::string& op, std::vector<Output> inputs, AttrMap attrs = {},
          std::vector<Node*> controls = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.control_inputs = std::move(controls);
  spec.attrs = std::move(attrs);
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

Node* Const(Graph& g, Tensor t) {
  DType d = t.dtype();
  return Add(g, "constant", {}, {{"value", std::move(t)}, {"dtype", d}});
}

// One while_loop variable laid out as while_loop builds it (i < n, i + 1
// with n a loop invariant), a cond's switch and merge, a control_trigger,
// and a next_iteration that also feeds something other than a merge.
struct ControlFlowGraph {
  Graph g;
  Node *zero, *n, *enter, *invariant, *merge, *less, *loop_cond, *sw, *exit, *body, *next, *stray;
  Node *pred, *cond_switch, *cond_merge, *trigger;

  ControlFlowGraph() {
    zero = Const(g, Tensor::Scalar<int64_t>(0));
    n = Const(g, Tensor::Scalar<int64_t>(3));
    AttrMap var{{while_loop::kFrameNameAttr, std::string("f")}, {while_loop::kIsConstantAttr, false}};
    AttrMap inv{{while_loop::kFrameNameAttr, std::string("f")}, {while_loop::kIsConstantAttr, true}};
    enter = Add(g, kEnterOp, {zero->output(0)}, var);
    invariant = Add(g, kEnterOp, {n->output(0)}, inv);
    merge = Add(g, kMergeOp, {enter->output(0), enter->output(0)});
    less = Add(g, "less", {merge->output(0), invariant->output(0)});
    loop_cond = Add(g, kLoopCondOp, {less->output(0)});
    sw = Add(g, kSwitchOp, {merge->output(0), loop_cond->output(0)});
    exit = Add(g, kExitOp, {sw->output(while_loop::kSwitchToExit)});
    body = Add(g, "identity", {sw->output(while_loop::kSwitchToBody)});
    next = Add(g, kNextIterationOp, {body->output(0)});
    EXPECT_TRUE(merge->ReplaceInput(while_loop::kMergeFromNextIteration, next->output(0)).ok());
    stray = Add(g, "identity", {next->output(0)});
    pred = Const(g, Tensor::Scalar<bool>(true));
    cond_switch = Add(g, kSwitchOp, {zero->output(0), pred->output(0)});
    cond_merge = Add(g, kMergeOp, {cond_switch->output(kSwitchFalseOutput), cond_switch->output(kSwitchTrueOutput)});
    trigger = Add(g, kControlTriggerOp, {}, {}, {body});
  }
};

// `is` holds for exactly the nodes of `expected` among all of `g`'s.
void ExpectHoldsFor(const Graph& g, bool (*is)(const Node&), const std::set<const Node*>& expected,
                    const std::string& what) {
  for (const auto& node : g.nodes()) {
    EXPECT_EQ(is(*node), expected.count(node.get()) > 0) << what << " on " << node->name();
  }
}

TEST(ControlFlowTest, EachPredicateRecognisesItsOwnOpOnly) {
  ControlFlowGraph c;
  ExpectHoldsFor(c.g, IsSwitch, {c.sw, c.cond_switch}, "IsSwitch");
  ExpectHoldsFor(c.g, IsMerge, {c.merge, c.cond_merge}, "IsMerge");
  ExpectHoldsFor(c.g, IsEnter, {c.enter, c.invariant}, "IsEnter");
  ExpectHoldsFor(c.g, IsExit, {c.exit}, "IsExit");
  ExpectHoldsFor(c.g, IsNextIteration, {c.next}, "IsNextIteration");
  ExpectHoldsFor(c.g, IsLoopCond, {c.loop_cond}, "IsLoopCond");
  ExpectHoldsFor(c.g, IsControlTrigger, {c.trigger}, "IsControlTrigger");
}

// control_trigger only waits, so passes that leave frames and branches
// alone may still treat it as an ordinary node.
TEST(ControlFlowTest, ControlFlowIsTheFrameAndBranchOps) {
  ControlFlowGraph c;
  ExpectHoldsFor(c.g, IsControlFlow,
                 {c.enter, c.invariant, c.merge, c.cond_merge, c.sw, c.cond_switch, c.exit, c.next, c.loop_cond},
                 "IsControlFlow");
  EXPECT_FALSE(IsControlFlow(*c.trigger));
  EXPECT_FALSE(IsControlFlow(*c.body));
}

TEST(ControlFlowTest, ConstantEnterIsTheLoopInvariantOnly) {
  ControlFlowGraph c;
  ExpectHoldsFor(c.g, IsConstantEnter, {c.invariant}, "IsConstantEnter");
}

TEST(ControlFlowTest, TheLoopBackEdgeIsMergeFromNextIteration) {
  ControlFlowGraph c;
  const Output back = c.merge->inputs()[while_loop::kMergeFromNextIteration];
  EXPECT_EQ(back.node, c.next);
  EXPECT_TRUE(IsLoopBackEdge(*c.merge, back));
  const Output first = c.merge->inputs()[while_loop::kMergeFromEnter];
  EXPECT_EQ(first.node, c.enter);
  EXPECT_FALSE(IsLoopBackEdge(*c.merge, first));
  // A next_iteration read by something other than a merge closes no loop.
  EXPECT_FALSE(IsLoopBackEdge(*c.stray, c.stray->inputs()[0]));
  for (const Output& in : c.cond_merge->inputs()) EXPECT_FALSE(IsLoopBackEdge(*c.cond_merge, in));
}

TEST(ControlFlowTest, TheGraphHasOneBackEdge) {
  ControlFlowGraph c;
  int back_edges = 0;
  for (const auto& node : c.g.nodes()) {
    for (const Output& in : node->inputs()) back_edges += IsLoopBackEdge(*node, in);
  }
  EXPECT_EQ(back_edges, 1);
}

// The layout's indices and attr names must be those the ops declare.
TEST(ControlFlowTest, LayoutAgreesWithTheRegisteredOps) {
  const OpDef* sw = OpRegistry::Global().Find(kSwitchOp);
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->inputs[kSwitchDataInput].name, "data");
  EXPECT_EQ(sw->inputs[kSwitchPredInput].name, "pred");
  EXPECT_EQ(sw->outputs[while_loop::kSwitchToExit].name, "output_false");
  EXPECT_EQ(sw->outputs[while_loop::kSwitchToBody].name, "output_true");
  const OpDef* enter = OpRegistry::Global().Find(kEnterOp);
  ASSERT_NE(enter, nullptr);
  EXPECT_NE(enter->FindAttr(while_loop::kFrameNameAttr), nullptr);
  EXPECT_NE(enter->FindAttr(while_loop::kIsConstantAttr), nullptr);
  EXPECT_NE(enter->FindAttr(while_loop::kParallelIterationsAttr), nullptr);
  for (const char* op : {kMergeOp, kExitOp, kNextIterationOp, kLoopCondOp, kControlTriggerOp}) {
    EXPECT_NE(OpRegistry::Global().Find(op), nullptr) << op;
  }
}

}  // namespace control_flow_test
}  // namespace tfg
