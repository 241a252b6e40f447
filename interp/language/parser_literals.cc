// The AST builder's atoms and literals (parser_ast_builder.h): numbers,
// strings and their escapes, true/false/none, names, list and dict
// displays, lambdas, and the size limit on one literal's text.
#include <algorithm>
#include <charconv>
#include <string_view>

#include "interp/language/parser_ast_builder.h"
#include "interp/language/parser_builder_helpers.h"

namespace tfg::parse {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// atom : INT | FLOAT | STRING | FSTRING | 'true' | 'false' | 'none' (or Python's
//        spellings) | '?' | NAME | group | NUMBER_LIST | listLit | dictLit | lambda
Result<ast::ExprPtr> AstBuilder::BuildAtom(TfgParser::AtomContext* ctx) {
  if (auto* group = ctx->group(); group != nullptr && group->expr().size() == 1 && group->COMMA().empty()) {
    // Parentheses only group; the span grows to cover them.
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr inner, BuildExpr(group->expr(0)));
    inner->span = Span(ctx);
    return inner;
  }
  if (ctx->NUMBER_LIST() != nullptr) {
    TFG_RETURN_IF_ERROR(CheckLiteralSize(ctx, "list"));
    return BuildNumberList(text_, ctx->NUMBER_LIST()->getSymbol());
  }
  if (ctx->group() != nullptr) return BuildTuple(ctx->group());
  if (ctx->listLit() != nullptr && ctx->listLit()->compFor() != nullptr) return BuildListComp(ctx->listLit());
  if (ctx->dictLit() != nullptr && ctx->dictLit()->compFor() != nullptr) return BuildDictComp(ctx->dictLit());
  if (ctx->listLit() != nullptr) return BuildList(ctx->listLit());
  if (ctx->dictLit() != nullptr) return BuildDict(ctx->dictLit());
  if (ctx->lambda() != nullptr) return BuildLambda(ctx->lambda());
  return BuildLiteral(ctx->getStart());
}

Result<ast::ExprPtr> AstBuilder::BuildLiteral(const Token* token) {
  SourceSpan span = text_.TokenSpan(token);
  switch (token->getType()) {
    case TfgParser::INT: return BuildInt(token, std::move(span));
    case TfgParser::FLOAT: return BuildFloat(token, std::move(span));
    case TfgParser::STRING: {
      TFG_RETURN_IF_ERROR(
          CheckLiteralSize(text_.Offset(token->getStartIndex()), text_.Offset(token->getStopIndex() + 1), "string"));
      TFG_ASSIGN_OR_RETURN(std::string value, DecodeString(token));
      return MakeExpr<ast::StringLit>(std::move(span), std::move(value));
    }
    case TfgParser::KW_TRUE:
    case TfgParser::PY_TRUE: return MakeExpr<ast::BoolLit>(std::move(span), true);
    case TfgParser::KW_FALSE:
    case TfgParser::PY_FALSE: return MakeExpr<ast::BoolLit>(std::move(span), false);
    case TfgParser::KW_NONE:
    case TfgParser::PY_NONE: return MakeExpr<ast::NoneLit>(std::move(span));
    case TfgParser::FSTRING: return BuildFString(token);
    case TfgParser::QUESTION: return MakeExpr<ast::UnknownDim>(std::move(span));
    case TfgParser::NAME: return MakeExpr<ast::Name>(std::move(span), std::string(text_.Bytes(token)));
    default: return Internal("parser: unknown literal");
  }
}

// INT : DIGIT+ | '0' [xX] HEX_DIGIT+
Result<ast::ExprPtr> AstBuilder::BuildInt(const Token* token, SourceSpan span) {
  std::string_view digits = text_.Bytes(token);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  int64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    return SyntaxError(fmt::format("integer {} does not fit in 64 bits", text_.Bytes(token)), span);
  }
  return MakeExpr<ast::IntLit>(std::move(span), value);
}

// FLOAT : DIGIT+ '.' DIGIT* EXPONENT? | '.' DIGIT+ EXPONENT? | DIGIT+ EXPONENT
// from_chars, unlike strtod, ignores the locale (the REPL may set one).
Result<ast::ExprPtr> AstBuilder::BuildFloat(const Token* token, SourceSpan span) {
  std::string_view digits = text_.Bytes(token);
  double value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    return SyntaxError(fmt::format("number {} is out of range for a 64-bit float", digits), span);
  }
  return MakeExpr<ast::FloatLit>(std::move(span), value);
}

// STRING : '"' (ESCAPE | ~["\\\r\n])* '"' | '\'' (ESCAPE | ~['\\\r\n])* '\''
// Drops the quotes and decodes \n \t \r \0 \\ \" \' \xNN.
Result<std::string> AstBuilder::DecodeString(const Token* token) {
  std::string_view raw = text_.Bytes(token);
  return DecodeEscapes(raw.substr(1, raw.size() - 2), text_.Offset(token->getStartIndex()) + 1);
}

Result<std::string> AstBuilder::DecodeEscapes(std::string_view raw, size_t base) {
  const size_t close = raw.size();
  std::string out;
  for (size_t i = 0; i < close; ++i) {
    if (raw[i] != '\\') {
      out += raw[i];
      continue;
    }
    if (i + 1 >= close) return SyntaxError("a string may not end with a lone '\\'", text_.Span(base + i, base + i));
    char c = raw[i + 1];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': case '"': case '\'': out += c; break;
      case 'x': {
        int hi = i + 2 < close ? HexValue(raw[i + 2]) : -1;
        int lo = i + 3 < close ? HexValue(raw[i + 3]) : -1;
        if (hi < 0 || lo < 0) {
          return SyntaxError("'\\x' must be followed by two hex digits", text_.Span(base + i, base + i + 1));
        }
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default: {
        size_t n = std::max<size_t>(Utf8SequenceLength(raw, i + 1), 1);
        return SyntaxError(fmt::format("unknown escape sequence '\\{}'", raw.substr(i + 1, n)),
                           text_.Span(base + i, base + i + 1));
      }
    }
    ++i;
  }
  return out;
}

// A literal's text may be at most limits_.max_literal_bytes; the error
// points at its first character.
Status AstBuilder::CheckLiteralSize(antlr4::ParserRuleContext* ctx, const char* what) const {
  return CheckLiteralSize(text_.Offset(ctx->getStart()->getStartIndex()),
                          text_.Offset(ctx->getStop()->getStopIndex() + 1), what);
}

Status AstBuilder::CheckLiteralSize(size_t begin, size_t end, const char* what) const {
  if (end < begin || end - begin <= limits_.max_literal_bytes) return Status::OK();
  return SyntaxError(fmt::format("this {} literal is {}, larger than the limit of {} for one literal; "
                                 "load big data from a file (load_npy, load_csv)",
                                 what, DescribeSize(end - begin), DescribeSize(limits_.max_literal_bytes)),
                     text_.Span(begin, begin));
}

// listLit : '[' (expr (compFor | (',' expr)* ','?))? ']', without compFor
Result<ast::ExprPtr> AstBuilder::BuildList(TfgParser::ListLitContext* ctx) {
  TFG_RETURN_IF_ERROR(CheckLiteralSize(ctx, "list"));
  auto list = std::make_unique<ast::ListLit>(Span(ctx));
  for (auto* e : ctx->expr()) {
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr element, BuildExpr(e));
    list->elements.push_back(std::move(element));
  }
  return ast::ExprPtr(std::move(list));
}

// dictLit : '{' NEWLINE* (dictItem (compFor | (NEWLINE* ',' NEWLINE* dictItem)* (NEWLINE* ',')?))? NEWLINE* '}',
//           without compFor
// dictItem : expr ':' expr
Result<ast::ExprPtr> AstBuilder::BuildDict(TfgParser::DictLitContext* ctx) {
  TFG_RETURN_IF_ERROR(CheckLiteralSize(ctx, "dict"));
  auto dict = std::make_unique<ast::DictLit>(Span(ctx));
  for (auto* item : ctx->dictItem()) {
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr key, BuildExpr(item->expr(0)));
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr value, BuildExpr(item->expr(1)));
    dict->keys.push_back(std::move(key));
    dict->values.push_back(std::move(value));
  }
  return ast::ExprPtr(std::move(dict));
}

// lambda : 'fn' '(' params? ')' block
Result<ast::ExprPtr> AstBuilder::BuildLambda(TfgParser::LambdaContext* ctx) {
  TFG_ASSIGN_OR_RETURN(auto def, BuildFunction("<lambda>", ctx->params(), ctx->block(), Span(ctx)));
  return MakeExpr<ast::Lambda>(Span(ctx), std::move(def));
}

}  // namespace tfg::parse
