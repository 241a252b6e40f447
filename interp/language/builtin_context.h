// What a builtin may ask of the interpreter that calls it. Builtins
// (interp/language/builtins/) and the helpers they share (control_flow,
// recovery, checkpoint_across_tasks) see this interface instead of the
// whole Evaluator, so that they cannot come to depend on how the evaluator
// walks the AST, and so that a change to the evaluator's statement or
// expression machinery does not recompile every builtin. Evaluator is the
// one implementation; it passes itself to the builtins it calls.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/language/ast.h"
#include "interp/language/interpreter.h"
#include "interp/language/scopes.h"
#include "interp/language/value.h"
#include "interp/runtime/session.h"

namespace tfg {

class ControlFlowContext;
struct RecoveryPoint;

// The arguments of one call, evaluated.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<SourceSpan> positional_spans;
  std::vector<std::pair<std::string, Value>> keywords;
  std::vector<SourceSpan> keyword_spans;

  void Add(Value v, SourceSpan span = {}) {
    positional.push_back(std::move(v));
    positional_spans.push_back(std::move(span));
  }
  void AddKeyword(std::string name, Value v, SourceSpan span = {}) {
    keywords.emplace_back(std::move(name), std::move(v));
    keyword_spans.push_back(std::move(span));
  }
};

// How a node is built beyond its NodeSpec.
struct BuildOptions {
  bool apply_scope_name = true;  // prefix the name with the `with scope` path
  bool apply_device = true;      // fill an empty device from `with device`
  bool apply_deps = true;        // add the `with deps` control inputs
};

class BuiltinContext {
 public:
  // run() bookkeeping for the leak warning (interp/language/builtins/builtins_run.cc).
  struct RunHistory {
    int64_t runs = 0;
    int64_t last_version = -1;
    int growth_streak = 0;
    std::string last_growth_site;  // where the newest node came from at the last growth, and the run() line
    bool warned = false;
  };

  virtual ~BuiltinContext() = default;

  // ---- calls back into the script
  // Calls a function, builtin or op value as the script's `callee(args)` would.
  virtual Result<Value> Call(const Value& callee, CallArgs args, const SourceSpan& span) = 0;
  // Calls the registry op `op`: eagerly on host values, else builds its node.
  virtual Result<Value> CallOpByName(const std::string& op, CallArgs args, const SourceSpan& span) = 0;
  // `a op b` with the script's semantics (host arithmetic or a graph node).
  virtual Result<Value> Binary(ast::BinaryOp op, const Value& a, const Value& b, const SourceSpan& span) = 0;

  // ---- graph building
  // Applies the `with` scopes and the control-flow context, then adds the
  // node; errors point at spec.span.
  virtual Result<Node*> AddNode(NodeSpec spec, BuildOptions opts = {}) = 0;
  // `base` if no node has that name yet, else base_1, base_2, ...
  virtual std::string FreshName(const std::string& base) const = 0;
  // A graph output for `v`: graph tensors as they are, variables read,
  // host data as a constant of `dtype` (nullopt: the value's default).
  virtual Result<Output> ToOutput(const Value& v, std::optional<DType> dtype, const SourceSpan& span) = 0;
  // A constant node holding `t`.
  virtual Result<Output> AddConstant(const Tensor& t, const SourceSpan& span, const std::string& name = "",
                                     BuildOptions opts = {}) = 0;
  // The nodes behind values given to deps()/group(), lists flattened.
  virtual Result<std::vector<Node*>> ControlNodes(const Value& v, const SourceSpan& span) = 0;
  // The cond branch or while_loop body being built; null outside them.
  virtual ControlFlowContext* control_flow() const = 0;
  // Makes `c` the context new nodes are built in (InContext restores it).
  virtual void set_control_flow(ControlFlowContext* c) = 0;

  // ---- state
  // The graph the script builds.
  virtual Graph& graph() = 0;
  // The session that runs graph().
  virtual Session& session() = 0;
  // The `with` scopes in force.
  virtual ScopeStack& scopes() = 0;
  // How the interpreter was started (flags, limits, output streams).
  virtual const InterpreterOptions& options() const = 0;
  // Set by checkpoint_every; null when the script keeps no checkpoints.
  virtual std::shared_ptr<RecoveryPoint>& recovery_point() = 0;
  // Every variable the script created, in creation order.
  virtual std::vector<std::shared_ptr<VariableInfo>>& variables() = 0;
  // The leak warning's memory of earlier run() calls.
  virtual RunHistory& run_history() = 0;
  // 0, 1, 2, ... for successive calls with the same key, so that a host
  // builtin drawing random numbers draws anew each call, repeatably.
  virtual uint64_t NextCallCount(const std::string& key) = 0;

  // ---- output
  // Where print() writes.
  virtual std::ostream& out() = 0;
  // Where warnings and progress lines go.
  virtual std::ostream& err() = 0;
  // A warning on err(), shaped like an error (file:line:col, the line, a
  // caret), that does not stop the script.
  virtual void Warn(const std::string& message, const SourceSpan& where) = 0;

 protected:
  BuiltinContext() = default;
  BuiltinContext(const BuiltinContext&) = delete;
  BuiltinContext& operator=(const BuiltinContext&) = delete;
};

}  // namespace tfg
