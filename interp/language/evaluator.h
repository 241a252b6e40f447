// The evaluator walks the AST: host statements run at once, expressions on
// host values compute at once (Python semantics), and expressions touching a
// graph tensor build nodes through the op registry. It owns the graph, the
// session that runs it, the `with` scopes, the variables and the modules.
//
// Builtins (interp/language/builtins/) see it only as a BuiltinContext
// (builtin_context.h), so they depend on what they use of it, not on how
// it walks the AST; op calls (interp/language/op_call.cc) use its public
// part. Its implementation is split by idea: evaluator_expr.cc,
// evaluator_operators.cc, evaluator_index.cc, evaluator_stmt.cc,
// evaluator_call.cc, evaluator_graph.cc.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interp/language/ast.h"
#include "interp/language/builtin_context.h"
#include "interp/language/interpreter.h"
#include "interp/language/scopes.h"
#include "interp/runtime/session.h"
#include "interp/language/value.h"

namespace tfg {

class ModuleLoader;

// How a statement finished.
enum class Flow { kNormal, kBreak, kContinue, kReturn };

class Evaluator final : public BuiltinContext {
 public:
  static constexpr int kMaxCallDepth = 200;

  explicit Evaluator(InterpreterOptions options);
  ~Evaluator() override;
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // ---- programs
  // Runs a parsed file in `globals`. `last_value`, when given, receives the
  // value of the program's last statement if it is an expression statement
  // (the REPL prints it), else none.
  Status ExecProgram(std::shared_ptr<ast::Program> program, const std::shared_ptr<Env>& globals,
                     Value* last_value = nullptr);
  // A fresh module scope.
  std::shared_ptr<Env> NewGlobals() const { return std::make_shared<Env>(); }
  const std::shared_ptr<Env>& main_globals() const { return main_globals_; }

  // ---- expressions and statements
  Result<Value> Eval(const ast::Expr& e, const std::shared_ptr<Env>& env);
  Result<Flow> Exec(const ast::Stmt& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecBlock(const ast::Block& b, const std::shared_ptr<Env>& env);

  // ---- names
  // Locals, enclosing scopes, globals, then builtins (print, f32, argv, ...)
  // and registry ops. Error with a suggestion for unknown names.
  Result<Value> LookupName(const std::string& name, const std::shared_ptr<Env>& env, const SourceSpan& span);
  // Names visible from `env` and every builtin and op (for completion and
  // suggestions).
  std::vector<std::string> VisibleNames(const std::shared_ptr<Env>& env) const;
  const std::unordered_map<std::string, Value>& builtin_names() const { return builtin_names_; }

  // ---- calls
  Result<Value> Call(const Value& callee, CallArgs args, const SourceSpan& span) override;
  // Binds a call to a registry op and runs it eagerly (all inputs host
  // values, op not stateful) or builds its node (interp/language/op_call.cc).
  Result<Value> CallOp(const OpDef& op, CallArgs args, const SourceSpan& span);
  Result<Value> CallOpByName(const std::string& op, CallArgs args, const SourceSpan& span) override;

  // ---- operators (also used by builtins)
  Result<Value> Binary(ast::BinaryOp op, const Value& a, const Value& b, const SourceSpan& span) override;
  Result<Value> Unary(ast::UnaryOp op, const Value& x, const SourceSpan& span);

  // ---- graph building
  // Applies the `with` scopes and adds the node; errors point at spec.span.
  Result<Node*> AddNode(NodeSpec spec, BuildOptions opts = {}) override;
  // `base` if no node has that name yet, else base_1, base_2, ...
  std::string FreshName(const std::string& base) const override;
  // A graph output for `v`: graph tensors as they are, variables read (a
  // fresh read inside `with deps`), host data as a constant node of `dtype`
  // (nullopt: the value's default dtype).
  Result<Output> ToOutput(const Value& v, std::optional<DType> dtype, const SourceSpan& span) override;
  Result<Output> ReadVariable(const VariableInfo& var, const SourceSpan& span);
  // A constant node holding `t`.
  Result<Output> AddConstant(const Tensor& t, const SourceSpan& span, const std::string& name = "",
                             BuildOptions opts = {}) override;
  // The nodes behind values given to deps()/group(): graph tensors' nodes,
  // ops, variables' nodes; lists flattened; none skipped.
  Result<std::vector<Node*>> ControlNodes(const Value& v, const SourceSpan& span) override;
  // Runs one op eagerly on host tensors.
  Result<std::vector<Tensor>> RunEager(const OpDef& op, AttrMap attrs, const std::vector<Tensor>& inputs,
                                       const SourceSpan& span);

  // ---- control flow: the cond branch or while_loop body being built
  // (interp/language/control_flow.h); null outside them.
  ControlFlowContext* control_flow() const override { return control_flow_; }
  void set_control_flow(ControlFlowContext* c) override { control_flow_ = c; }

  // ---- state
  Graph& graph() override { return graph_; }
  const Graph& graph() const { return graph_; }
  Session& session() override { return *session_; }
  ScopeStack& scopes() override { return scopes_; }
  const InterpreterOptions& options() const override { return options_; }
  // Set by checkpoint_every: where a run restores from when a cluster task
  // dies (interp/language/recovery.h); null when the script keeps no checkpoints.
  std::shared_ptr<RecoveryPoint>& recovery_point() override { return recovery_point_; }
  std::ostream& out() override;
  std::ostream& err() override;
  // A warning on err(), in the form of an error (file:line:col, the line,
  // a caret), that does not stop the script.
  void Warn(const std::string& message, const SourceSpan& where) override;
  ModuleLoader& modules() { return *modules_; }
  std::vector<std::shared_ptr<VariableInfo>>& variables() override { return variables_; }

  RunHistory& run_history() override { return run_history_; }
  // 0, 1, 2, ... for successive calls with the same key: host builtins that
  // draw random numbers number their calls so each draws anew, repeatably.
  uint64_t NextCallCount(const std::string& key) override { return call_counts_[key]++; }

  // Remembers a scope captured by a closure so the cycles closures make
  // (a function stored in the scope it captured) can be broken at exit.
  void TrackClosureScope(const std::shared_ptr<Env>& env);

  // The prelude's public names (minimize, adam, ...), loading it if no
  // script line has yet: for tab completion.
  std::vector<std::string> PreludeNames();

 private:
  // evaluator_expr.cc
  Result<Value> EvalList(const ast::ListLit& e, const std::shared_ptr<Env>& env);
  Result<Value> EvalDict(const ast::DictLit& e, const std::shared_ptr<Env>& env);
  Result<Value> EvalAttribute(const ast::Attribute& e, const std::shared_ptr<Env>& env);
  Result<Value> EvalLogical(const ast::Binary& e, const std::shared_ptr<Env>& env);
  Result<Value> MakeFunction(const std::shared_ptr<ast::FunctionDef>& def, const std::shared_ptr<Env>& env);
  // evaluator_python.cc
  Result<Value> EvalComprehension(const ast::Comprehension& e, const std::shared_ptr<Env>& env);
  Status RunCompClause(const ast::Comprehension& e, size_t clause, const std::shared_ptr<Env>& scope, Value& out);
  Result<Value> EvalFString(const ast::FString& e, const std::shared_ptr<Env>& env);
  // evaluator_call.cc
  Result<Value> EvalCall(const ast::Call& e, const std::shared_ptr<Env>& env);
  Result<Value> CallFunction(const Function& fn, CallArgs args, const SourceSpan& span);
  bool InLibrary(const SourceSpan& span) const;
  Status BindParams(const Function& fn, CallArgs& args, Env& locals, const SourceSpan& span);
  // evaluator_index.cc
  Result<Value> EvalIndex(const ast::Index& e, const std::shared_ptr<Env>& env);
  Status AssignIndex(const ast::Index& target, Value value, const std::shared_ptr<Env>& env);
  // evaluator_stmt.cc
  Status Assign(const ast::Expr& target, Value value, const std::shared_ptr<Env>& env);
  Status AssignAll(const std::vector<ast::ExprPtr>& targets, const Value& value, const SourceSpan& span,
                   const std::shared_ptr<Env>& env);
  Result<Flow> ExecAugAssign(const ast::AugAssign& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecIf(const ast::If& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecFor(const ast::For& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecWhile(const ast::While& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecWith(const ast::With& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecTry(const ast::Try& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecImport(const ast::Import& s, const std::shared_ptr<Env>& env);
  Result<Flow> ExecLoopBody(const ast::Block& body, const std::shared_ptr<Env>& env, bool& stop);
  // Binds a for loop's (or comprehension's) names to one item, unpacking it
  // when there are several.
  Status BindLoopVars(const std::vector<std::string>& vars, Value item, Env& env, const SourceSpan& span);
  // prelude.cc
  Result<std::optional<Value>> LookupPrelude(const std::string& name, const SourceSpan& span);

  InterpreterOptions options_;
  Graph graph_;
  std::unique_ptr<Session> session_;
  ScopeStack scopes_;
  std::unique_ptr<ModuleLoader> modules_;
  std::shared_ptr<Env> main_globals_;
  std::unordered_map<std::string, Value> builtin_names_;
  std::vector<std::shared_ptr<VariableInfo>> variables_;
  std::vector<std::weak_ptr<Env>> closure_scopes_;
  RunHistory run_history_;
  std::shared_ptr<RecoveryPoint> recovery_point_;
  std::unordered_map<std::string, uint64_t> call_counts_;
  // While a standard-library function called from a user's script runs:
  // that call. Nodes the library builds and errors it raises point there,
  // at the user's line, not inside stdlib/ (evaluator_call.cc).
  SourceSpan library_caller_;
  ControlFlowContext* control_flow_ = nullptr;
  std::shared_ptr<Module> prelude_;  // stdlib/prelude.tfg, loaded at the first name nothing else defines
  bool prelude_loading_ = false;

  // Per-call state: the value a `return` gave, the last expression
  // statement's value (a function without `return` returns it), how many
  // loops enclose the statement being run, how deep calls nest.
  Value return_value_;
  Value last_expr_value_;
  int loop_depth_ = 0;
  int function_depth_ = 0;  // of the module being run: `return` needs > 0
  int call_depth_ = 0;
  int eval_depth_ = 0;
  int64_t statements_run_ = 0;  // against options_.max_statements
};

}  // namespace tfg
