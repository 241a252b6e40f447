// The evaluator's frame: construction, programs, name lookup.
#include "interp/language/evaluator.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "interp/language/builtins/builtins.h"
#include "interp/language/modules.h"
#include "ops/core/suggest.h"

namespace tfg {

Evaluator::Evaluator(InterpreterOptions options) : options_(std::move(options)) {
  SessionOptions so = options_.session;
  if (options_.log_placement) so.placement_log = &err();
  session_ = std::make_unique<Session>(&graph_, std::move(so));
  modules_ = std::make_unique<ModuleLoader>(options_.stdlib_dir);
  main_globals_ = NewGlobals();
  for (const BuiltinDef* def : BuiltinRegistry::Global().List()) {
    builtin_names_[def->name] = Value::Builtin(def, def->name);
  }
  for (auto& [name, value] : PredefinedNames()) builtin_names_[name] = value;
  std::vector<Value> argv;
  for (const std::string& a : options_.argv) argv.push_back(Value::Str(a));
  builtin_names_["argv"] = Value::NewList(std::move(argv));
}

Evaluator::~Evaluator() {
  // Closures stored in the scopes they capture form reference cycles;
  // clearing every such scope frees them (and the tensors they hold).
  for (auto& weak : closure_scopes_) {
    if (auto env = weak.lock()) env->vars.clear();
  }
  main_globals_->vars.clear();
  modules_->Clear();
  prelude_.reset();
  return_value_ = Value();
  last_expr_value_ = Value();
}

std::ostream& Evaluator::out() { return options_.out ? *options_.out : std::cout; }
std::ostream& Evaluator::err() { return options_.err ? *options_.err : std::cerr; }

void Evaluator::Warn(const std::string& message, const SourceSpan& where) {
  std::string text = FormatDiagnostic(Status(Code::kUnknown, message, where));
  const size_t pos = text.find("error: ");
  if (pos != std::string::npos) text.replace(pos, 7, "warning: ");
  err() << text << std::flush;
}

namespace {

bool SameScope(const std::weak_ptr<Env>& a, const std::weak_ptr<Env>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}

}  // namespace

void Evaluator::TrackClosureScope(const std::shared_ptr<Env>& env) {
  std::weak_ptr<Env> scope = env;
  // Closures made one after another in one scope (a loop's lambdas).
  if (!closure_scopes_.empty() && SameScope(closure_scopes_.back(), scope)) return;
  // Before the list would outgrow its storage: drop the scopes already
  // freed and the repeats. Storage doubles, so this costs O(log n) per
  // closure, where a scan for repeats on every call made a chain of
  // 100,000 closures (each capturing the last) take minutes.
  if (closure_scopes_.size() == closure_scopes_.capacity()) {
    std::erase_if(closure_scopes_, [](const std::weak_ptr<Env>& w) { return w.expired(); });
    std::sort(closure_scopes_.begin(), closure_scopes_.end(), std::owner_less<std::weak_ptr<Env>>());
    closure_scopes_.erase(std::unique(closure_scopes_.begin(), closure_scopes_.end(), SameScope),
                          closure_scopes_.end());
  }
  closure_scopes_.push_back(std::move(scope));
}

Status Evaluator::ExecProgram(std::shared_ptr<ast::Program> program, const std::shared_ptr<Env>& globals,
                              Value* last_value) {
  // A module runs at top level even when imported from inside a function.
  int saved_loops = loop_depth_, saved_functions = function_depth_;
  loop_depth_ = 0;
  function_depth_ = 0;
  Status status;
  for (const ast::StmtPtr& stmt : program->body) {
    last_expr_value_ = Value();
    auto flow = Exec(*stmt, globals);
    if (!flow.ok()) {
      status = flow.status();
      status.WithSpan(stmt->span);
      break;
    }
  }
  loop_depth_ = saved_loops;
  function_depth_ = saved_functions;
  if (last_value) {
    bool expr_last = status.ok() && !program->body.empty() && program->body.back()->kind == ast::StmtKind::kExpr;
    *last_value = expr_last ? last_expr_value_ : Value();
  }
  return status;
}

// ------------------------------------------------------------------- names

std::vector<std::string> Evaluator::VisibleNames(const std::shared_ptr<Env>& env) const {
  std::set<std::string> names;
  for (Env* e = env.get(); e != nullptr; e = e->parent.get()) {
    for (const auto& [name, v] : e->vars) names.insert(name);
  }
  for (const auto& [name, v] : builtin_names_) names.insert(name);
  for (const OpDef* op : OpRegistry::Global().ListOps()) names.insert(op->name);
  if (prelude_) {
    for (const auto& [name, v] : prelude_->globals->vars) names.insert(name);
  }
  return {names.begin(), names.end()};
}

Result<Value> Evaluator::LookupName(const std::string& name, const std::shared_ptr<Env>& env,
                                    const SourceSpan& span) {
  if (Value* v = env->Lookup(name)) return *v;
  if (auto it = builtin_names_.find(name); it != builtin_names_.end()) return it->second;
  if (const OpDef* op = OpRegistry::Global().Find(name)) return Value::OpFunction(op);
  TFG_ASSIGN_OR_RETURN(std::optional<Value> from_prelude, LookupPrelude(name, span));
  if (from_prelude) return *from_prelude;

  std::vector<std::string> candidates = VisibleNames(env);
  // Python's None, True and False are spelled none, true and false here.
  for (const char* literal : {"none", "true", "false"}) candidates.emplace_back(literal);
  std::string best = ClosestName(name, candidates);
  std::string msg = fmt::format("unknown name '{}'", name);
  if (!best.empty()) msg += fmt::format("; did you mean '{}'?", best);
  return Status(Code::kNotFound, msg, span);
}

}  // namespace tfg
