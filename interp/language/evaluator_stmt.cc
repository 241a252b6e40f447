// Statements: assignment, control flow, functions, imports, `with`, `try`.
#include <new>

#include "interp/language/evaluator.h"
#include "interp/runtime/colocation.h"
#include "interp/language/modules.h"
#include "interp/language/value_convert.h"
#include "interp/language/iteration.h"
#include "interp/runtime/interrupt.h"

namespace tfg {

namespace {

// Ctrl-C stops the script at the statement, or the loop iteration, it had
// reached: a host `while true {}` as surely as a run() (interrupt.h).
Status Interrupted(const SourceSpan& span) { return Status(Code::kCancelled, "interrupted (Ctrl-C)", span); }

// Memory running out while a statement runs (a graph grown past what the
// machine holds, a huge host list) is an error at that statement, the
// innermost one running, not the end of the process: a script can catch it
// (`except ResourceExhausted`) and the REPL goes on.
template <typename Run>
Result<Flow> OutOfMemoryAsError(const SourceSpan& span, Run run) {
  try {
    return run();
  } catch (const std::bad_alloc&) {
    return Status(Code::kResourceExhausted, "out of memory while running this statement", span);
  }
}

}  // namespace

Result<Flow> Evaluator::ExecBlock(const ast::Block& b, const std::shared_ptr<Env>& env) {
  for (const ast::StmtPtr& stmt : b) {
    auto flow = Exec(*stmt, env);
    if (!flow.ok()) return Status(flow.status()).WithSpan(stmt->span);
    if (*flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

Result<Flow> Evaluator::Exec(const ast::Stmt& s, const std::shared_ptr<Env>& env) {
  if (interrupt::Pending()) return Interrupted(s.span);
  if (options_.max_statements > 0 && ++statements_run_ > options_.max_statements) {
    return Status(Code::kResourceExhausted,
                  fmt::format("the script ran more than {} statements, this interpreter's limit",
                              options_.max_statements),
                  s.span);
  }
  return OutOfMemoryAsError(s.span, [&]() -> Result<Flow> {
    switch (s.kind) {
      case ast::StmtKind::kExpr: {
        TFG_ASSIGN_OR_RETURN(Value v, Eval(*static_cast<const ast::ExprStmt&>(s).expr, env));
        last_expr_value_ = std::move(v);
        return Flow::kNormal;
      }
      case ast::StmtKind::kAssign: {
        const auto& a = static_cast<const ast::Assign&>(s);
        TFG_ASSIGN_OR_RETURN(Value v, Eval(*a.value, env));
        TFG_RETURN_IF_ERROR(AssignAll(a.targets, v, s.span, env));
        return Flow::kNormal;
      }
      case ast::StmtKind::kAugAssign: return ExecAugAssign(static_cast<const ast::AugAssign&>(s), env);
      case ast::StmtKind::kFnDef: {
        const auto& def = static_cast<const ast::FnDef&>(s).def;
        TFG_ASSIGN_OR_RETURN(Value fn, MakeFunction(def, env));
        env->vars[def->name] = std::move(fn);
        return Flow::kNormal;
      }
      case ast::StmtKind::kReturn: {
        const auto& r = static_cast<const ast::Return&>(s);
        if (function_depth_ == 0) return Status(Code::kInvalidArgument, "'return' outside a function", s.span);
        Value v;
        if (r.value) {
          TFG_ASSIGN_OR_RETURN(v, Eval(*r.value, env));
        }
        return_value_ = std::move(v);
        return Flow::kReturn;
      }
      case ast::StmtKind::kIf: return ExecIf(static_cast<const ast::If&>(s), env);
      case ast::StmtKind::kFor: return ExecFor(static_cast<const ast::For&>(s), env);
      case ast::StmtKind::kWhile: return ExecWhile(static_cast<const ast::While&>(s), env);
      case ast::StmtKind::kBreak:
      case ast::StmtKind::kContinue: {
        bool is_break = s.kind == ast::StmtKind::kBreak;
        if (loop_depth_ == 0) {
          return Status(Code::kInvalidArgument, fmt::format("'{}' outside a loop", is_break ? "break" : "continue"),
                        s.span);
        }
        return is_break ? Flow::kBreak : Flow::kContinue;
      }
      case ast::StmtKind::kImport: return ExecImport(static_cast<const ast::Import&>(s), env);
      case ast::StmtKind::kWith: return ExecWith(static_cast<const ast::With&>(s), env);
      case ast::StmtKind::kTry: return ExecTry(static_cast<const ast::Try&>(s), env);
      case ast::StmtKind::kPass: return Flow::kNormal;
    }
    return Status(Code::kInternal, "unknown statement kind", s.span);
  });
}

// ------------------------------------------------------------- assignment

Status Evaluator::Assign(const ast::Expr& target, Value value, const std::shared_ptr<Env>& env) {
  switch (target.kind) {
    case ast::ExprKind::kName:
      env->vars[static_cast<const ast::Name&>(target).id] = std::move(value);
      return Status::OK();
    case ast::ExprKind::kIndex: return AssignIndex(static_cast<const ast::Index&>(target), std::move(value), env);
    case ast::ExprKind::kAttribute: {
      const auto& a = static_cast<const ast::Attribute&>(target);
      TFG_ASSIGN_OR_RETURN(Value obj, Eval(*a.object, env));
      if (obj.is(ValueKind::kModule)) {
        obj.as_module()->globals->vars[a.name] = std::move(value);
        return Status::OK();
      }
      return Status(Code::kInvalidArgument,
                    fmt::format("cannot set attribute '{}' of {}", a.name, Describe(obj)), target.span);
    }
    default: return Status(Code::kInvalidArgument, "cannot assign to this expression", target.span);
  }
}

namespace {

// The items `a, b = value` unpacks: a list's items, a range's numbers, a
// host tensor's rows. A range of other than `names` numbers is not made
// into a list (it may be long): the count alone makes the error.
Result<std::vector<Value>> Unpack(const Value& v, size_t names) {
  std::vector<Value> items;
  switch (v.kind()) {
    case ValueKind::kList: return v.as_list().items;
    case ValueKind::kRange:
      if (v.as_range().size() != static_cast<int64_t>(names)) {
        return InvalidArgument("cannot unpack {} values into {} names", v.as_range().size(), names);
      }
      for (int64_t i = 0; i < v.as_range().size(); ++i) items.push_back(Value::Int(v.as_range().at(i)));
      return items;
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      if (t.rank() == 0) break;
      for (int64_t i = 0; i < t.dim(0); ++i) items.push_back(Value::HostTensor(TensorRow(t, i)));
      return items;
    }
    default: break;
  }
  return InvalidArgument("cannot unpack {}; expected a list", Describe(v));
}

}  // namespace

Status Evaluator::AssignAll(const std::vector<ast::ExprPtr>& targets, const Value& value, const SourceSpan& span,
                            const std::shared_ptr<Env>& env) {
  if (targets.size() == 1) return Assign(*targets[0], value, env);
  auto items = Unpack(value, targets.size());
  if (!items.ok()) return Status(items.status()).WithSpan(span);
  if (items->size() != targets.size()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("cannot unpack {} value{} into {} names", items->size(), items->size() == 1 ? "" : "s",
                              targets.size()),
                  span);
  }
  for (size_t i = 0; i < targets.size(); ++i) TFG_RETURN_IF_ERROR(Assign(*targets[i], (*items)[i], env));
  return Status::OK();
}

Result<Flow> Evaluator::ExecAugAssign(const ast::AugAssign& s, const std::shared_ptr<Env>& env) {
  // The target is read and written once each; `x[i()] += 1` calls i() twice,
  // a documented simplification.
  TFG_ASSIGN_OR_RETURN(Value current, Eval(*s.target, env));
  TFG_ASSIGN_OR_RETURN(Value rhs, Eval(*s.value, env));
  TFG_ASSIGN_OR_RETURN(Value result, Binary(s.op, current, rhs, s.span));
  TFG_RETURN_IF_ERROR(Assign(*s.target, std::move(result), env));
  return Flow::kNormal;
}

// ------------------------------------------------------------ control flow

Result<Flow> Evaluator::ExecIf(const ast::If& s, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value cond, Eval(*s.cond, env));
  auto truth = Truthy(cond);
  if (!truth.ok()) return Status(truth.status()).WithSpan(s.cond->span);
  return ExecBlock(*truth ? s.then_body : s.else_body, env);
}

Result<Flow> Evaluator::ExecLoopBody(const ast::Block& body, const std::shared_ptr<Env>& env, bool& stop) {
  ++loop_depth_;
  auto flow = ExecBlock(body, env);
  --loop_depth_;
  if (!flow.ok()) return flow;
  stop = *flow == Flow::kBreak || *flow == Flow::kReturn;
  return *flow == Flow::kReturn ? Flow::kReturn : Flow::kNormal;
}

// In check mode run() gives zeros, so a loop that waits for a run() result
// (a queue drained until OutOfRange, a step counter fetched from the graph)
// may never end. One that has called run() and gone on this long is left,
// with a warning, and the checking goes on after it.
constexpr int64_t kCheckModeLoopLimit = 100000;

Result<Flow> Evaluator::ExecWhile(const ast::While& s, const std::shared_ptr<Env>& env) {
  const int64_t runs_before = run_history_.runs;
  for (int64_t iteration = 0;; ++iteration) {
    // A body's statements look for Ctrl-C themselves (at their own line).
    if (s.body.empty() && interrupt::Pending()) return Interrupted(s.span);
    if (options_.check_only && iteration == kCheckModeLoopLimit && run_history_.runs > runs_before) {
      Warn(fmt::format("check mode left this loop after {} iterations: run() gives zeros here, so a loop that "
                       "waits for a run() result may never end",
                       kCheckModeLoopLimit),
           s.span);
      return Flow::kNormal;
    }
    TFG_ASSIGN_OR_RETURN(Value cond, Eval(*s.cond, env));
    auto truth = Truthy(cond);
    if (!truth.ok()) return Status(truth.status()).WithSpan(s.cond->span);
    if (!*truth) return Flow::kNormal;
    bool stop = false;
    TFG_ASSIGN_OR_RETURN(Flow flow, ExecLoopBody(s.body, env, stop));
    if (stop) return flow;
  }
}

Status Evaluator::BindLoopVars(const std::vector<std::string>& vars, Value item, Env& env,
                               const SourceSpan& span) {
  if (vars.size() == 1) {
    env.vars[vars[0]] = std::move(item);
    return Status::OK();
  }
  auto parts = Unpack(item, vars.size());
  if (!parts.ok()) return Status(parts.status()).WithSpan(span);
  if (parts->size() != vars.size()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("cannot unpack {} values into {} loop variables", parts->size(), vars.size()), span);
  }
  for (size_t i = 0; i < vars.size(); ++i) env.vars[vars[i]] = (*parts)[i];
  return Status::OK();
}

Result<Flow> Evaluator::ExecFor(const ast::For& s, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value iterable, Eval(*s.iterable, env));
  auto it = Iteration::Of(iterable);
  if (!it.ok()) return Status(it.status()).WithSpan(s.iterable->span);
  while (std::optional<Value> item = it->Next()) {
    if (s.body.empty() && interrupt::Pending()) return Interrupted(s.span);
    TFG_RETURN_IF_ERROR(BindLoopVars(s.vars, std::move(*item), *env, s.span));
    bool stop = false;
    TFG_ASSIGN_OR_RETURN(Flow flow, ExecLoopBody(s.body, env, stop));
    if (stop) return flow;
  }
  return Flow::kNormal;
}

// ------------------------------------------------------ import, with, try

Result<Flow> Evaluator::ExecImport(const ast::Import& s, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<Module> module, modules_->Load(*this, s));
  env->vars[s.alias.empty() ? s.module : s.alias] = Value::Mod(std::move(module));
  return Flow::kNormal;
}

Result<Flow> Evaluator::ExecWith(const ast::With& s, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value ctx, Eval(*s.context, env));
  if (!ctx.is(ValueKind::kContext)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("'with' needs device(...), scope(...), deps(...) or container(...); got {}",
                              Describe(ctx)),
                  s.context->span);
  }
  const ContextValue& c = ctx.as_context();
  switch (c.kind) {
    case ContextValue::Kind::kDevice: {
      if (c.setter) {
        scopes_.PushDeviceSetter(c.setter);
        break;
      }
      auto spec = DeviceSpec::Parse(c.text);
      if (!spec.ok()) return Status(spec.status()).WithSpan(s.context->span);
      scopes_.PushDevice(*spec, false);
      break;
    }
    case ContextValue::Kind::kScope: scopes_.PushScope(c.text); break;
    case ContextValue::Kind::kDeps: scopes_.PushDeps(c.nodes); break;
    case ContextValue::Kind::kContainer: scopes_.PushContainer(c.text); break;
    case ContextValue::Kind::kColocate: {
      DeviceSpec anchor;
      if (const Node* n = graph_.FindNode(c.text)) {
        auto spec = DeviceSpec::Parse(SplitDeviceRequest(n->requested_device()).device);
        if (spec.ok()) anchor = *spec;
      }
      scopes_.PushColocate(c.text, anchor);
      break;
    }
  }
  ScopeGuard guard(scopes_);
  if (!s.as_name.empty()) env->vars[s.as_name] = ctx;
  return ExecBlock(s.body, env);
}

Result<Flow> Evaluator::ExecTry(const ast::Try& s, const std::shared_ptr<Env>& env) {
  std::vector<std::optional<Code>> kinds;
  for (const ast::ExceptClause& h : s.handlers) {
    if (h.error_kind.empty()) {
      kinds.emplace_back(std::nullopt);
      continue;
    }
    auto code = CodeFromName(h.error_kind);
    if (!code) {
      return Status(Code::kInvalidArgument,
                    fmt::format("unknown error kind '{}' (kinds: Cancelled, Unknown, InvalidArgument, "
                                "DeadlineExceeded, NotFound, AlreadyExists, PermissionDenied, ResourceExhausted, "
                                "FailedPrecondition, Aborted, OutOfRange, Unimplemented, Internal, Unavailable, "
                                "DataLoss)",
                                h.error_kind),
                    h.span);
    }
    kinds.emplace_back(*code);
  }
  int saved_loops = loop_depth_;
  auto flow = ExecBlock(s.body, env);
  if (flow.ok()) return flow;
  loop_depth_ = saved_loops;
  const Status& error = flow.status();
  for (size_t i = 0; i < s.handlers.size(); ++i) {
    if (kinds[i] && *kinds[i] != error.code()) continue;
    const ast::ExceptClause& h = s.handlers[i];
    if (!h.as_name.empty()) env->vars[h.as_name] = Value::Str(error.message());
    return ExecBlock(h.body, env);
  }
  return flow;
}

}  // namespace tfg
