// Building graphs node by node in the executor and session tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/tensor.h"

namespace tfg::test {

// Adds a node; a failure is a test failure (and returns null).
inline Node* AddNode(Graph& g, const std::string& op, std::vector<Output> inputs, AttrMap attrs = {},
                     const std::string& name = "", SourceSpan span = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.name = name;
  spec.span = std::move(span);
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

inline Output Const(Graph& g, Tensor t) {
  DType d = t.dtype();
  return AddNode(g, "constant", {}, {{"value", std::move(t)}, {"dtype", d}})->output(0);
}

inline int64_t ScalarI64(const Tensor& t) { return t.data<int64_t>()[0]; }

struct LoopGraph {
  Output i, s;  // the exits
};

// i, s = while_loop(i < n, [i + 1, s + i], [0, s0]), by hand: what
// while_loop builds. `n` is outside the loop and enters as a constant. s0
// (default: the scalar 0) may be any i64 tensor.
inline LoopGraph BuildSumLoop(Graph& g, Output n, const std::string& frame, int64_t parallel,
                              Output s0 = {}) {
  AttrMap enter_attrs{{"frame_name", frame}, {"is_constant", false}, {"parallel_iterations", parallel}};
  AttrMap const_attrs{{"frame_name", frame}, {"is_constant", true}, {"parallel_iterations", parallel}};
  Output zero = Const(g, Tensor::Scalar<int64_t>(0));
  Output one = Const(g, Tensor::Scalar<int64_t>(1));
  Node* enter_i = AddNode(g, "enter", {zero}, enter_attrs);
  Node* enter_s = AddNode(g, "enter", {s0.node ? s0 : zero}, enter_attrs);
  Node* enter_n = AddNode(g, "enter", {n}, const_attrs);
  Node* enter_one = AddNode(g, "enter", {one}, const_attrs);
  Node* merge_i = AddNode(g, "merge", {enter_i->output(0), enter_i->output(0)});
  Node* merge_s = AddNode(g, "merge", {enter_s->output(0), enter_s->output(0)});
  Node* less = AddNode(g, "less", {merge_i->output(0), enter_n->output(0)});
  Node* cond = AddNode(g, "loop_cond", {less->output(0)});
  Node* switch_i = AddNode(g, "switch", {merge_i->output(0), cond->output(0)});
  Node* switch_s = AddNode(g, "switch", {merge_s->output(0), cond->output(0)});
  Node* exit_i = AddNode(g, "exit", {switch_i->output(0)});
  Node* exit_s = AddNode(g, "exit", {switch_s->output(0)});
  Node* next_i = AddNode(g, "next_iteration", {AddNode(g, "add", {switch_i->output(1), enter_one->output(0)})->output(0)});
  Node* next_s = AddNode(g, "next_iteration", {AddNode(g, "add", {switch_s->output(1), switch_i->output(1)})->output(0)});
  EXPECT_TRUE(merge_i->ReplaceInput(1, next_i->output(0)).ok());
  EXPECT_TRUE(merge_s->ReplaceInput(1, next_s->output(0)).ok());
  return {exit_i->output(0), exit_s->output(0)};
}

}  // namespace tfg::test
