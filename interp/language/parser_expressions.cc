// The AST builder's expression rules (parser_ast_builder.h): operator
// chains folded to the left within the nesting limit, unary operators,
// calls, attributes and indexing. Atoms are parser_literals.cc.
#include <algorithm>
#include <limits>
#include <optional>

#include "interp/language/parser_ast_builder.h"
#include "interp/language/parser_builder_helpers.h"

namespace tfg::parse {

std::optional<ast::BinaryOp> BinaryOpOf(size_t token_type) {
  switch (token_type) {
    case TfgParser::PLUS: case TfgParser::PLUS_ASSIGN: return ast::BinaryOp::kAdd;
    case TfgParser::MINUS: case TfgParser::MINUS_ASSIGN: return ast::BinaryOp::kSub;
    case TfgParser::STAR: case TfgParser::STAR_ASSIGN: return ast::BinaryOp::kMul;
    case TfgParser::SLASH: case TfgParser::SLASH_ASSIGN: return ast::BinaryOp::kDiv;
    case TfgParser::FLOORDIV: case TfgParser::FLOORDIV_ASSIGN: return ast::BinaryOp::kFloorDiv;
    case TfgParser::PERCENT: case TfgParser::PERCENT_ASSIGN: return ast::BinaryOp::kMod;
    case TfgParser::AT: case TfgParser::AT_ASSIGN: return ast::BinaryOp::kMatMul;
    case TfgParser::POW: return ast::BinaryOp::kPow;
    case TfgParser::LT: return ast::BinaryOp::kLt;
    case TfgParser::LE: return ast::BinaryOp::kLe;
    case TfgParser::GT: return ast::BinaryOp::kGt;
    case TfgParser::GE: return ast::BinaryOp::kGe;
    case TfgParser::EQ: return ast::BinaryOp::kEq;
    case TfgParser::NE: return ast::BinaryOp::kNe;
    case TfgParser::KW_AND: return ast::BinaryOp::kAnd;
    case TfgParser::KW_OR: return ast::BinaryOp::kOr;
    default: return std::nullopt;
  }
}

// Folds `operand (op operand)*` to the left. The rule's children alternate
// operand contexts and operator tokens; a loop, not recursion, so long chains
// cost no stack here. The tree is kept within kMaxAstDepth as it grows: a
// deeper one could overflow the stack just being destroyed.
template <typename Operand>
Result<ast::ExprPtr> AstBuilder::FoldBinary(antlr4::ParserRuleContext* ctx,
                                            ExprResult (AstBuilder::*build)(Operand*)) {
  const auto& kids = ctx->children;
  auto operand = [&](size_t i) -> ExprResult {
    auto* c = i < kids.size() ? dynamic_cast<Operand*>(kids[i]) : nullptr;
    if (c == nullptr) return Internal("parser: malformed operator chain");
    return (this->*build)(c);
  };
  auto too_deep = [&] {
    return SyntaxError(fmt::format("expression nested too deeply (the limit is {} levels)", kMaxAstDepth), Span(ctx));
  };
  if (kids.size() / 2 >= static_cast<size_t>(kMaxAstDepth)) return too_deep();
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr lhs, operand(0));
  if (kids.size() == 1) return lhs;
  int depth = MeasureDepth(lhs.get(), kMaxAstDepth);
  for (size_t i = 1; i + 1 < kids.size(); i += 2) {
    auto* op = dynamic_cast<antlr4::tree::TerminalNode*>(kids[i]);
    std::optional<ast::BinaryOp> kind = op ? BinaryOpOf(op->getSymbol()->getType()) : std::nullopt;
    if (!kind) return Internal("parser: malformed operator chain");
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr rhs, operand(i + 1));
    depth = std::max(depth, MeasureDepth(rhs.get(), kMaxAstDepth)) + 1;
    if (depth > kMaxAstDepth) return too_deep();
    SourceSpan span = Join(lhs->span, rhs->span);
    lhs = MakeExpr<ast::Binary>(std::move(span), *kind, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

// expr : andExpr ('or' andExpr)*
Result<ast::ExprPtr> AstBuilder::BuildExpr(TfgParser::ExprContext* ctx) {
  return FoldBinary(ctx, &AstBuilder::BuildAnd);
}

// andExpr : notExpr ('and' notExpr)*
Result<ast::ExprPtr> AstBuilder::BuildAnd(TfgParser::AndExprContext* ctx) {
  return FoldBinary(ctx, &AstBuilder::BuildNot);
}

// notExpr : 'not' notExpr | comparison
Result<ast::ExprPtr> AstBuilder::BuildNot(TfgParser::NotExprContext* ctx) {
  if (ctx->comparison() != nullptr) return BuildComparison(ctx->comparison());
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr operand, BuildNot(ctx->notExpr()));
  return MakeExpr<ast::Unary>(Span(ctx), ast::UnaryOp::kNot, std::move(operand));
}

// comparison : arith (('<' | '<=' | '>' | '>=' | '==' | '!=') arith)*
// Python reads a < b < c as a chain; rather than silently differ, refuse it.
// compOp : '<' | '<=' | '>' | '>=' | '==' | '!=' | 'in' | 'not' 'in'
Result<ast::ExprPtr> AstBuilder::BuildComparison(TfgParser::ComparisonContext* ctx) {
  if (ctx->arith().size() > 2) {
    return SyntaxError("comparisons cannot be chained; write 'a < b and b < c'", Span(ctx));
  }
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr lhs, BuildArith(ctx->arith(0)));
  if (ctx->arith().size() == 1) return lhs;
  TfgParser::CompOpContext* op = ctx->compOp(0);
  std::optional<ast::BinaryOp> kind = op->KW_NOT() != nullptr ? ast::BinaryOp::kNotIn
                                      : op->KW_IN() != nullptr ? ast::BinaryOp::kIn
                                                               : BinaryOpOf(op->getStart()->getType());
  if (!kind) return Internal("parser: unknown comparison operator");
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr rhs, BuildArith(ctx->arith(1)));
  if (std::max(MeasureDepth(lhs.get(), kMaxAstDepth), MeasureDepth(rhs.get(), kMaxAstDepth)) + 1 > kMaxAstDepth) {
    return SyntaxError(fmt::format("expression nested too deeply (the limit is {} levels)", kMaxAstDepth), Span(ctx));
  }
  SourceSpan span = Join(lhs->span, rhs->span);
  return MakeExpr<ast::Binary>(std::move(span), *kind, std::move(lhs), std::move(rhs));
}

// arith : term (('+' | '-') term)*
Result<ast::ExprPtr> AstBuilder::BuildArith(TfgParser::ArithContext* ctx) {
  return FoldBinary(ctx, &AstBuilder::BuildTerm);
}

// term : factor (('*' | '/' | '%' | '@') factor)*
Result<ast::ExprPtr> AstBuilder::BuildTerm(TfgParser::TermContext* ctx) {
  return FoldBinary(ctx, &AstBuilder::BuildFactor);
}

namespace {

// The INT token of a factor that is nothing but an int literal, else null.
const Token* BareIntOf(TfgParser::FactorContext* ctx) {
  TfgParser::PowerContext* power = ctx->power();
  if (power == nullptr || power->factor() != nullptr || !power->postfix()->trailer().empty()) return nullptr;
  TfgParser::AtomContext* atom = power->postfix()->atom();
  return atom->INT() != nullptr ? atom->INT()->getSymbol() : nullptr;
}

}  // namespace

// factor : ('-' | '+') factor | power
Result<ast::ExprPtr> AstBuilder::BuildFactor(TfgParser::FactorContext* ctx) {
  if (ctx->power() != nullptr) return BuildPower(ctx->power());
  // -9223372036854775808 is the one int whose digits alone do not fit: it
  // is read whole, as Python reads it.
  if (const Token* digits = BareIntOf(ctx->factor()); ctx->MINUS() != nullptr && digits != nullptr &&
                                                      text_.Bytes(digits) == "9223372036854775808") {
    return MakeExpr<ast::IntLit>(Span(ctx), std::numeric_limits<int64_t>::min());
  }
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr operand, BuildFactor(ctx->factor()));
  ast::UnaryOp op = ctx->MINUS() != nullptr ? ast::UnaryOp::kNeg : ast::UnaryOp::kPos;
  return MakeExpr<ast::Unary>(Span(ctx), op, std::move(operand));
}

// power : postfix ('**' factor)?
Result<ast::ExprPtr> AstBuilder::BuildPower(TfgParser::PowerContext* ctx) {
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr base, BuildPostfix(ctx->postfix()));
  if (ctx->factor() == nullptr) return base;
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr exponent, BuildFactor(ctx->factor()));
  return MakeExpr<ast::Binary>(Span(ctx), ast::BinaryOp::kPow, std::move(base), std::move(exponent));
}

// postfix : atom trailer*
// trailer : '(' arguments? ')' | '.' NAME | '[' subscripts ']'
Result<ast::ExprPtr> AstBuilder::BuildPostfix(TfgParser::PostfixContext* ctx) {
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr expr, BuildAtom(ctx->atom()));
  for (auto* trailer : ctx->trailer()) {
    SourceSpan span = Join(expr->span, Span(trailer));
    if (auto* call = dynamic_cast<TfgParser::CallTrailerContext*>(trailer)) {
      TFG_ASSIGN_OR_RETURN(expr, BuildCall(std::move(expr), call, std::move(span)));
    } else if (auto* index = dynamic_cast<TfgParser::IndexTrailerContext*>(trailer)) {
      TFG_ASSIGN_OR_RETURN(expr, BuildIndex(std::move(expr), index, std::move(span)));
    } else if (auto* attr = dynamic_cast<TfgParser::AttributeTrailerContext*>(trailer)) {
      expr = MakeExpr<ast::Attribute>(std::move(span), std::move(expr), attr->NAME()->getText());
    }
  }
  return expr;
}

// arguments : argument (',' argument)* ','?      argument : NAME '=' expr | expr
Result<ast::ExprPtr> AstBuilder::BuildCall(ast::ExprPtr callee, TfgParser::CallTrailerContext* ctx, SourceSpan span) {
  auto call = std::make_unique<ast::Call>(std::move(span));
  call->callee = std::move(callee);
  std::vector<TfgParser::ArgumentContext*> args;
  if (ctx->arguments() != nullptr) args = ctx->arguments()->argument();
  for (auto* a : args) {
    ast::Argument arg;
    arg.span = Span(a);
    if (a->NAME() != nullptr) arg.keyword = a->NAME()->getText();
    for (const ast::Argument& earlier : call->args) {
      if (!arg.keyword && earlier.keyword) {
        return SyntaxError("positional argument follows keyword argument", arg.span);
      }
      if (arg.keyword && earlier.keyword == arg.keyword) {
        return SyntaxError(fmt::format("keyword argument '{}' given twice", *arg.keyword), arg.span);
      }
    }
    TFG_ASSIGN_OR_RETURN(arg.value, BuildExpr(a->expr()));
    call->args.push_back(std::move(arg));
  }
  return ast::ExprPtr(std::move(call));
}

// subscripts : subscript (',' subscript)*
// A last empty subscript after a comma is a trailing comma: t[1, ].
Result<ast::ExprPtr> AstBuilder::BuildIndex(ast::ExprPtr object, TfgParser::IndexTrailerContext* ctx,
                                            SourceSpan span) {
  auto index = std::make_unique<ast::Index>(std::move(span));
  index->object = std::move(object);
  std::vector<TfgParser::SubscriptContext*> subscripts = ctx->subscripts()->subscript();
  for (size_t i = 0; i < subscripts.size(); ++i) {
    TfgParser::SubscriptContext* s = subscripts[i];
    bool empty = s->lower == nullptr && s->COLON().empty() && s->ELLIPSIS() == nullptr;
    if (empty && i > 0 && i + 1 == subscripts.size()) break;
    if (empty) return SyntaxError("expected an index or a slice", text_.TokenSpan(s->getStart()));
    TFG_ASSIGN_OR_RETURN(ast::Subscript subscript, BuildSubscript(s));
    index->subscripts.push_back(std::move(subscript));
  }
  return ast::ExprPtr(std::move(index));
}

// subscript : ELLIPSIS | lower=expr? (':' upper=expr? (':' stride=expr?)?)?
Result<ast::Subscript> AstBuilder::BuildSubscript(TfgParser::SubscriptContext* ctx) {
  ast::Subscript subscript;
  subscript.span = Span(ctx);
  if (ctx->ELLIPSIS() != nullptr) {
    subscript.is_ellipsis = true;
    return subscript;
  }
  if (ctx->COLON().empty()) {
    TFG_ASSIGN_OR_RETURN(subscript.index, BuildExpr(ctx->lower));
    return subscript;
  }
  subscript.is_slice = true;
  if (ctx->lower != nullptr) {
    TFG_ASSIGN_OR_RETURN(subscript.start, BuildExpr(ctx->lower));
  }
  if (ctx->upper != nullptr) {
    TFG_ASSIGN_OR_RETURN(subscript.stop, BuildExpr(ctx->upper));
  }
  if (ctx->stride != nullptr) {
    TFG_ASSIGN_OR_RETURN(subscript.step, BuildExpr(ctx->stride));
  }
  return subscript;
}

}  // namespace tfg::parse
