// The AST builder's rules for what Python programmers write out of habit:
// comprehensions, f-strings, and tuples (refused with a hint to use a list).
#include <string_view>

#include "interp/language/parser_ast_builder.h"

namespace tfg::parse {

// group : '(' (expr (',' (expr (',' expr)* ','?)?)?)? ')' with a comma or
// nothing inside. A tuple would need a host value kind of its own (immutable); a list does
// everything a tuple does in a tfg script, so the message says so.
Result<ast::ExprPtr> AstBuilder::BuildTuple(TfgParser::GroupContext* ctx) {
  return SyntaxError(
      "tuples are not supported: write a list, [a, b], which works wherever TensorFlow takes a tuple "
      "(shapes, fetches, unpacking `a, b = ...`); parentheses only group",
      Span(ctx));
}

// listLit : '[' expr compFor ']'
Result<ast::ExprPtr> AstBuilder::BuildListComp(TfgParser::ListLitContext* ctx) {
  auto comp = std::make_unique<ast::Comprehension>(ast::ExprKind::kListComp, Span(ctx));
  TFG_ASSIGN_OR_RETURN(comp->element, BuildExpr(ctx->expr(0)));
  TFG_RETURN_IF_ERROR(BuildCompFor(ctx->compFor(), *comp));
  return ast::ExprPtr(std::move(comp));
}

// dictLit : '{' NEWLINE* dictItem compFor NEWLINE* '}'
Result<ast::ExprPtr> AstBuilder::BuildDictComp(TfgParser::DictLitContext* ctx) {
  auto comp = std::make_unique<ast::Comprehension>(ast::ExprKind::kDictComp, Span(ctx));
  TFG_ASSIGN_OR_RETURN(comp->element, BuildExpr(ctx->dictItem(0)->expr(0)));
  TFG_ASSIGN_OR_RETURN(comp->value, BuildExpr(ctx->dictItem(0)->expr(1)));
  TFG_RETURN_IF_ERROR(BuildCompFor(ctx->compFor(), *comp));
  return ast::ExprPtr(std::move(comp));
}

// compFor : 'for' NAME (',' NAME)* 'in' expr compIf* compFor?
// compIf  : 'if' expr
// Nested clauses come out flat, outermost first; the loop is iterative so
// a long chain of clauses costs no stack.
Status AstBuilder::BuildCompFor(TfgParser::CompForContext* ctx, ast::Comprehension& into) {
  for (; ctx != nullptr; ctx = ctx->compFor()) {
    ast::CompFor clause;
    clause.span = Span(ctx);
    for (auto* name : ctx->NAME()) clause.vars.emplace_back(text_.Bytes(name->getSymbol()));
    TFG_ASSIGN_OR_RETURN(clause.iterable, BuildExpr(ctx->expr()));
    for (auto* condition : ctx->compIf()) {
      TFG_ASSIGN_OR_RETURN(ast::ExprPtr test, BuildExpr(condition->expr()));
      clause.conditions.push_back(std::move(test));
    }
    into.clauses.push_back(std::move(clause));
  }
  return Status::OK();
}

namespace {

// The first i in [begin, end) where `stop(i)` holds outside brackets and
// quotes of the expression, npos when none. Brackets nest; a closer at the
// top level ends nothing and is not a stop unless `stop` says so.
template <typename Stop>
size_t FirstAtTopLevel(std::string_view raw, size_t begin, size_t end, Stop stop) {
  int depth = 0;
  char quote = 0;
  for (size_t i = begin; i < end; ++i) {
    const char c = raw[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (depth == 0 && stop(i)) {
      return i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// Where the field that opens at raw[open] ('{') closes: the '}' that is
// not inside brackets or a string of the expression. npos when none.
size_t FStringFieldEnd(std::string_view raw, size_t open) {
  return FirstAtTopLevel(raw, open + 1, raw.size(), [raw](size_t i) { return raw[i] == '}'; });
}

// Where the expression of a field ends: at a top-level '!' conversion (not
// '!=') or ':' spec, else at the closing brace.
size_t FStringExpressionEnd(std::string_view raw, size_t begin, size_t close) {
  const size_t end = FirstAtTopLevel(raw, begin, close, [raw, close](size_t i) {
    return raw[i] == ':' || (raw[i] == '!' && (i + 1 >= close || raw[i + 1] != '='));
  });
  return end == std::string_view::npos ? close : end;
}

}  // namespace

// FSTRING : [fF] ('"' ... '"' | '\'' ... '\'')
// Literal text keeps the escapes of ordinary strings; `{{` and `}}` are
// braces. A field is `{expr}`, `{expr!r}`, `{expr:spec}` or `{expr!s:spec}`.
Result<ast::ExprPtr> AstBuilder::BuildFString(const Token* token) {
  const size_t begin = text_.Offset(token->getStartIndex());
  TFG_RETURN_IF_ERROR(CheckLiteralSize(begin, text_.Offset(token->getStopIndex() + 1), "string"));
  std::string_view whole = text_.Bytes(token);
  std::string_view raw = whole.substr(2, whole.size() - 3);  // without f and the quotes
  const size_t base = begin + 2;
  auto fstring = std::make_unique<ast::FString>(text_.TokenSpan(token));
  std::string literal_raw;  // escapes still encoded, braces already undoubled
  size_t literal_at = 0;
  auto flush_literal = [&]() -> Status {
    if (literal_raw.empty()) return Status::OK();
    ast::FStringPart part;
    TFG_ASSIGN_OR_RETURN(part.literal, DecodeEscapes(literal_raw, base + literal_at));
    fstring->parts.push_back(std::move(part));
    literal_raw.clear();
    return Status::OK();
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (literal_raw.empty()) literal_at = i;
    if (c == '\\' && i + 1 < raw.size()) {  // an escape, kept whole for DecodeEscapes
      literal_raw += raw.substr(i, 2);
      ++i;
    } else if ((c == '{' || c == '}') && i + 1 < raw.size() && raw[i + 1] == c) {
      literal_raw += c;
      ++i;
    } else if (c == '}') {
      return SyntaxError("single '}' in an f-string: write '}}' for a brace", text_.Span(base + i, base + i));
    } else if (c == '{') {
      const size_t close = FStringFieldEnd(raw, i);
      if (close == std::string_view::npos) {
        return SyntaxError("this '{' of an f-string has no closing '}'", text_.Span(base + i, base + i));
      }
      TFG_RETURN_IF_ERROR(flush_literal());
      TFG_RETURN_IF_ERROR(AddFStringField(raw, base, i, close, *fstring));
      i = close;
    } else {
      literal_raw += c;
    }
  }
  TFG_RETURN_IF_ERROR(flush_literal());
  return ast::ExprPtr(std::move(fstring));
}

// One `{expr!c:spec}` field at raw[open..close] (the braces).
Status AstBuilder::AddFStringField(std::string_view raw, size_t base, size_t open, size_t close,
                                   ast::FString& into) {
  ast::FStringPart part;
  part.span = text_.Span(base + open, base + close);
  const size_t expr_end = FStringExpressionEnd(raw, open + 1, close);
  std::string_view expr = raw.substr(open + 1, expr_end - open - 1);
  if (expr.find_first_not_of(" \t") == std::string_view::npos) {
    return SyntaxError("empty expression in an f-string's braces", part.span);
  }
  if (size_t bad = expr.find_first_of("\\#"); bad != std::string_view::npos) {
    const size_t at = base + open + 1 + bad;
    return SyntaxError(fmt::format("'{}' is not allowed inside an f-string's braces", expr[bad]),
                       text_.Span(at, at));
  }
  TFG_ASSIGN_OR_RETURN(part.expr, ParseEmbeddedExpr(text_, base + open + 1, base + expr_end, limits_));
  size_t at = expr_end;
  if (at < close && raw[at] == '!') {
    const char conversion = at + 1 < close ? raw[at + 1] : '\0';
    if (conversion != 'r' && conversion != 's' && conversion != 'a') {
      return SyntaxError("an f-string conversion is !r, !s or !a", text_.Span(base + at, base + at));
    }
    part.conversion = conversion == 'a' ? 'r' : conversion;
    at += 2;
    if (at < close && raw[at] != ':') {
      return SyntaxError("expected ':' or '}' after the conversion", text_.Span(base + at, base + at));
    }
  }
  if (at < close && raw[at] == ':') {
    std::string_view spec = raw.substr(at + 1, close - at - 1);
    if (spec.find_first_of("{}") != std::string_view::npos) {
      return SyntaxError("nested fields in a format spec are not supported yet; format the value first",
                         text_.Span(base + at + 1, base + close - 1));
    }
    part.spec = std::string(spec);
  }
  into.parts.push_back(std::move(part));
  return Status::OK();
}

}  // namespace tfg::parse
