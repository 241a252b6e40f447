// Calls: argument evaluation, dispatch on the callee, tfg functions.
#include "interp/language/builtins/builtins.h"
#include "interp/language/evaluator.h"
#include "interp/language/modules.h"

namespace tfg {

Result<Value> Evaluator::EvalCall(const ast::Call& e, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value callee, Eval(*e.callee, env));
  CallArgs args;
  for (const ast::Argument& arg : e.args) {
    TFG_ASSIGN_OR_RETURN(Value v, Eval(*arg.value, env));
    SourceSpan span = arg.span.valid() ? arg.span : arg.value->span;
    if (arg.keyword) {
      for (const auto& [name, prev] : args.keywords) {
        if (name == *arg.keyword) {
          return Status(Code::kInvalidArgument, fmt::format("keyword argument '{}' given twice", name), span);
        }
      }
      args.AddKeyword(*arg.keyword, std::move(v), span);
    } else {
      args.Add(std::move(v), span);
    }
  }
  auto result = Call(callee, std::move(args), e.span);
  if (!result.ok()) return Status(result.status()).WithSpan(e.span);
  return result;
}

Result<Value> Evaluator::Call(const Value& callee, CallArgs args, const SourceSpan& span) {
  switch (callee.kind()) {
    case ValueKind::kFunction: return CallFunction(*callee.as_function(), std::move(args), span);
    case ValueKind::kBuiltin: {
      const BuiltinDef& def = *callee.as_builtin();
      TFG_ASSIGN_OR_RETURN(BoundArgs bound, BindBuiltinArgs(def, std::move(args), span));
      auto result = def.fn(*this, bound);
      if (!result.ok()) return Status(result.status()).WithSpan(span);
      return result;
    }
    case ValueKind::kOpFunction: return CallOp(*callee.as_op_function(), std::move(args), span);
    default:
      return Status(Code::kInvalidArgument, fmt::format("{} is not callable", Describe(callee)), span);
  }
}

Status Evaluator::BindParams(const Function& fn, CallArgs& args, Env& locals, const SourceSpan& span) {
  const auto& params = fn.def->params;
  const std::string& name = fn.def->name;
  if (args.positional.size() > params.size()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}() takes {} argument{} but {} were given", name, params.size(),
                              params.size() == 1 ? "" : "s", args.positional.size()),
                  span);
  }
  std::vector<bool> given(params.size(), false);
  for (size_t i = 0; i < args.positional.size(); ++i) {
    locals.vars[params[i].name] = std::move(args.positional[i]);
    given[i] = true;
  }
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    auto& [key, value] = args.keywords[k];
    size_t i = 0;
    while (i < params.size() && params[i].name != key) ++i;
    if (i == params.size()) {
      return Status(Code::kInvalidArgument, fmt::format("{}() has no parameter '{}'", name, key), span);
    }
    if (given[i]) return Status(Code::kInvalidArgument, fmt::format("{}() got two values for '{}'", name, key), span);
    locals.vars[key] = std::move(value);
    given[i] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (given[i]) continue;
    if (!fn.defaults[i]) {
      Status s(Code::kInvalidArgument, fmt::format("{}() is missing its argument '{}'", name, params[i].name), span);
      return s.AddNote(fn.def->span, fmt::format("'{}' is defined here", name));
    }
    locals.vars[params[i].name] = *fn.defaults[i];
  }
  return Status::OK();
}

bool Evaluator::InLibrary(const SourceSpan& span) const {
  if (!span.file) return false;
  const std::string& dir = modules_->stdlib_dir();
  const std::string& path = span.file->path();
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

namespace {

// An error raised inside the standard library, re-pointed at the user's call
// with a note at the library line (as TensorFlow filters its own frames out
// of tracebacks).
Status AtCaller(const Status& s, const SourceSpan& call) {
  Status out(s.code(), s.message(), call);
  if (s.span().valid()) out.AddNote(s.span(), "raised inside the standard library here");
  for (const Note& n : s.notes()) out.AddNote(n.span, n.message);
  return out;
}

// An error from inside a function, with a note at the call it came
// through (a traceback, innermost call first), so that the user sees which
// of several calls failed. A recursion repeating one call adds it once,
// and a deep stack at most kMaxCallNotes.
constexpr size_t kMaxCallNotes = 16;

Status WithCallNote(Status s, const SourceSpan& call, const std::string& name) {
  if (!call.valid() || !s.span().valid() || s.notes().size() >= kMaxCallNotes) return s;
  if (!s.notes().empty()) {
    const SourceSpan& last = s.notes().back().span;
    if (last.file == call.file && last.line == call.line && last.col == call.col) return s;
  }
  return s.AddNote(call, name == "<lambda>" ? "in this call of a lambda" : fmt::format("in this call of '{}'", name));
}

}  // namespace

Result<Value> Evaluator::CallFunction(const Function& fn, CallArgs args, const SourceSpan& span) {
  if (call_depth_ >= kMaxCallDepth) {
    return Status(Code::kResourceExhausted,
                  fmt::format("maximum call depth ({}) exceeded calling '{}': is the recursion missing a base case?",
                              kMaxCallDepth, fn.def->name),
                  span);
  }
  auto locals = std::make_shared<Env>();
  locals->parent = fn.closure;
  TFG_RETURN_IF_ERROR(BindParams(fn, args, *locals, span));

  bool enters_library = !library_caller_.valid() && InLibrary(fn.def->span) && !InLibrary(span);
  if (enters_library) library_caller_ = span;
  int saved_loops = loop_depth_;
  loop_depth_ = 0;
  ++call_depth_;
  ++function_depth_;
  last_expr_value_ = Value();
  auto flow = ExecBlock(fn.def->body, locals);
  --function_depth_;
  --call_depth_;
  loop_depth_ = saved_loops;
  if (enters_library) library_caller_ = SourceSpan();
  if (!flow.ok()) {
    const Status& s = flow.status();
    if (enters_library && (!s.span().valid() || InLibrary(s.span()))) return AtCaller(s, span);
    return WithCallNote(s, span, fn.def->name);
  }

  Value result;
  if (*flow == Flow::kReturn) {
    result = std::move(return_value_);
    return_value_ = Value();
  } else if (!fn.def->body.empty() && fn.def->body.back()->kind == ast::StmtKind::kExpr) {
    result = std::move(last_expr_value_);
  }
  last_expr_value_ = Value();
  return result;
}

}  // namespace tfg
