// Graph building inside cond branches and while_loop bodies (white paper
// §4.4, after TensorFlow's CondContext and WhileContext). While a branch or
// body function runs, every node the evaluator adds passes through the
// innermost context, which:
// - routes each input built outside it in: through a switch on the
//   predicate (cond: the input is dead when the branch is not taken), or
//   through a constant enter (while: a loop invariant, delivered to every
//   iteration without running anything per iteration);
// - ties a node with no inputs, or (in a loop) only loop invariants for
//   inputs, to the context's pivot, so it runs (or is dead) with the
//   branch, or once per iteration (TensorFlow's _IsOpFree);
// - builds constants outside a loop and enters them, so they are not
//   recomputed every iteration;
// - moves `with deps(...)` control inputs from outside a loop onto the
//   loop's enters, the only way into its frame.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

class BuiltinContext;
class ControlFlowContext;

// Builds nodes in `ctx` (null: outside every context) until destroyed.
class InContext {
 public:
  InContext(BuiltinContext& ev, ControlFlowContext* ctx);
  ~InContext();
  InContext(const InContext&) = delete;
  InContext& operator=(const InContext&) = delete;

 private:
  BuiltinContext& ev_;
  ControlFlowContext* saved_;
};

class ControlFlowContext {
 public:
  enum class Kind { kCond, kWhile };

  // A branch of cond: nodes are live when `pred` equals `branch`.
  static std::unique_ptr<ControlFlowContext> Cond(ControlFlowContext* outer, Output pred, int branch);
  // The body and condition of a while_loop whose enters use `frame_name`.
  static std::unique_ptr<ControlFlowContext> While(ControlFlowContext* outer, std::string frame_name,
                                                   int64_t parallel_iterations);

  Kind kind() const { return kind_; }
  ControlFlowContext* outer() const { return outer_; }
  const std::string& frame_name() const { return frame_name_; }
  // This context or an enclosing one is a while_loop.
  bool InsideLoop() const;
  int64_t parallel_iterations() const { return parallel_iterations_; }

  // `o` may be used inside as it is (built inside, or already routed in).
  bool Contains(const Output& o) const;
  bool Contains(const Node* n) const;
  // Records a node built inside this context and every enclosing one.
  void AddMember(const Node* n);
  void AddValue(const Output& o) { values_.insert({o.node, o.index}); }

  // The version of outer tensor `o` usable inside (built on first use).
  Result<Output> Capture(BuiltinContext& ev, const Output& o, const SourceSpan& span);
  // Adjusts a node about to be built inside: inputs captured, control
  // inputs from outside a loop moved to its enters, a pivot for nodes
  // without inputs.
  Status Prepare(BuiltinContext& ev, NodeSpec& spec);

  // While: the enters of the loop variables (control inputs from outside go there).
  void SetEnters(std::vector<Node*> enters) { enters_ = std::move(enters); }
  // While: what nodes with nothing per iteration among their inputs
  // depend on (through an identity built on first need). While the
  // condition is built, the first loop variable's merge, live at every
  // test of it; then, for the body, that variable switched into the body,
  // live exactly when another iteration runs.
  void SetPivotSource(Output o) {
    pivot_source_ = o;
    pivot_ = nullptr;
  }

 private:
  ControlFlowContext(Kind kind, ControlFlowContext* outer) : kind_(kind), outer_(outer) {}
  Result<Node*> Pivot(BuiltinContext& ev, const SourceSpan& span);

  Kind kind_;
  ControlFlowContext* outer_;
  Output pred_;     // cond
  int branch_ = 0;  // cond: 1 true, 0 false
  std::string frame_name_;           // while
  int64_t parallel_iterations_ = 10;  // while
  std::vector<Node*> enters_;        // while
  Output pivot_source_;  // while
  Node* pivot_ = nullptr;
  std::set<const Node*> members_;
  std::set<std::pair<const Node*, int>> values_;
  std::map<std::pair<const Node*, int>, Output> captured_;
  std::set<const Node*> invariants_;  // while: the constant enters Capture built
};

}  // namespace tfg
