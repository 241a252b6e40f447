// Comprehensions and f-strings: the Python habits that need the evaluator.
#include "interp/language/evaluator.h"
#include "interp/language/format_spec.h"
#include "interp/language/iteration.h"
#include "interp/runtime/interrupt.h"

namespace tfg {

// The loop names live in a scope of their own, as in Python 3: after
// `[x for x in xs]` an outer `x` is unchanged. Closures made inside see it.
Result<Value> Evaluator::EvalComprehension(const ast::Comprehension& e, const std::shared_ptr<Env>& env) {
  auto scope = std::make_shared<Env>();
  scope->parent = env;
  Value out = e.kind == ast::ExprKind::kDictComp ? Value::NewDict() : Value::NewList();
  TFG_RETURN_IF_ERROR(RunCompClause(e, 0, scope, out));
  return out;
}

Status Evaluator::RunCompClause(const ast::Comprehension& e, size_t clause, const std::shared_ptr<Env>& scope,
                                Value& out) {
  if (clause == e.clauses.size()) {
    TFG_ASSIGN_OR_RETURN(Value element, Eval(*e.element, scope));
    if (e.value == nullptr) {
      out.as_list().items.push_back(std::move(element));
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(Value value, Eval(*e.value, scope));
    Status set = out.as_dict().Set(element, std::move(value));
    return set.ok() ? set : Status(set).WithSpan(e.element->span);
  }
  const ast::CompFor& c = e.clauses[clause];
  TFG_ASSIGN_OR_RETURN(Value iterable, Eval(*c.iterable, scope));
  auto it = Iteration::Of(iterable);
  if (!it.ok()) return Status(it.status()).WithSpan(c.iterable->span);
  while (std::optional<Value> item = it->Next()) {
    if (interrupt::Pending()) return Status(Code::kCancelled, "interrupted (Ctrl-C)", c.span);
    TFG_RETURN_IF_ERROR(BindLoopVars(c.vars, std::move(*item), *scope, c.span));
    bool keep = true;
    for (const ast::ExprPtr& condition : c.conditions) {
      TFG_ASSIGN_OR_RETURN(Value test, Eval(*condition, scope));
      Result<bool> truth = Truthy(test);
      if (!truth.ok()) return Status(truth.status()).WithSpan(condition->span);
      if (!(keep = *truth)) break;
    }
    if (keep) TFG_RETURN_IF_ERROR(RunCompClause(e, clause + 1, scope, out));
  }
  return Status::OK();
}

Result<Value> Evaluator::EvalFString(const ast::FString& e, const std::shared_ptr<Env>& env) {
  std::string out;
  for (const ast::FStringPart& part : e.parts) {
    if (part.expr == nullptr) {
      out += part.literal;
      continue;
    }
    TFG_ASSIGN_OR_RETURN(Value v, Eval(*part.expr, env));
    if (part.conversion == 'r') v = Value::Str(Repr(v));
    if (part.conversion == 's') v = Value::Str(ToDisplayString(v));
    Result<std::string> text = FormatWithSpec(v, part.spec);
    if (!text.ok()) return Status(text.status()).WithSpan(part.span);
    out += *text;
  }
  return Value::Str(std::move(out));
}

}  // namespace tfg
