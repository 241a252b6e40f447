// The AST builder: ANTLR's parse tree into the AST of interp/language/ast.h,
// one function per grammar rule (the driver is interp/language/parser_driver.cc).
#include "interp/language/parser_ast_builder.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string_view>

namespace tfg::parse {
namespace {

template <typename T, typename... Args>
ast::ExprPtr MakeExpr(Args&&... args) {
  return std::make_unique<T>(std::forward<Args>(args)...);
}
template <typename T, typename... Args>
ast::StmtPtr MakeStmt(Args&&... args) {
  return std::make_unique<T>(std::forward<Args>(args)...);
}

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

bool IsKeyword(std::string_view word) {
  static constexpr std::string_view kKeywords[] = {
      "fn", "return", "if", "else", "elif", "for", "in", "while", "break", "continue", "import",
      "as", "with", "try", "except", "pass", "true", "false", "none", "and", "or", "not"};
  return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}

bool IsIdentifier(std::string_view word) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (word.empty() || !alpha(word[0]) || IsKeyword(word)) return false;
  return std::all_of(word.begin(), word.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// stmtList : sep* (statement (sep+ statement)*)? sep*
Result<ast::Block> AstBuilder::BuildStmtList(TfgParser::StmtListContext* ctx) {
  ast::Block block;
  for (auto* statement : ctx->statement()) {
    TFG_ASSIGN_OR_RETURN(ast::StmtPtr stmt, BuildStatement(statement));
    block.push_back(std::move(stmt));
  }
  return block;
}

// statement : fnDef | ifStmt | forStmt | whileStmt | withStmt | tryStmt
//           | importStmt | returnStmt | breakStmt | continueStmt | passStmt
//           | simpleStmt
Result<ast::StmtPtr> AstBuilder::BuildStatement(TfgParser::StatementContext* ctx) {
  if (auto* c = ctx->simpleStmt()) return BuildSimpleStmt(c);
  if (auto* c = ctx->fnDef()) return BuildFnDef(c);
  if (auto* c = ctx->ifStmt()) return BuildIf(c);
  if (auto* c = ctx->forStmt()) return BuildFor(c);
  if (auto* c = ctx->whileStmt()) return BuildWhile(c);
  if (auto* c = ctx->withStmt()) return BuildWith(c);
  if (auto* c = ctx->tryStmt()) return BuildTry(c);
  if (auto* c = ctx->importStmt()) return BuildImport(c);
  if (auto* c = ctx->returnStmt()) return BuildReturn(c);
  if (ctx->breakStmt()) return MakeStmt<ast::Break>(Span(ctx));
  if (ctx->continueStmt()) return MakeStmt<ast::Continue>(Span(ctx));
  if (ctx->passStmt()) return MakeStmt<ast::Pass>(Span(ctx));
  return Internal("parser: unknown statement kind");
}

// simpleStmt : exprList (assignOp exprList)?      exprList : expr (',' expr)*
Result<ast::StmtPtr> AstBuilder::BuildSimpleStmt(TfgParser::SimpleStmtContext* ctx) {
  if (ctx->assignOp()) {
    std::vector<ast::ExprPtr> targets;
    for (auto* e : ctx->exprList(0)->expr()) {
      TFG_ASSIGN_OR_RETURN(ast::ExprPtr expr, BuildExpr(e));
      targets.push_back(std::move(expr));
    }
    return BuildAssign(ctx, std::move(targets));
  }
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr value, BuildExprList(ctx->exprList(0)));
  return MakeStmt<ast::ExprStmt>(Span(ctx), std::move(value));
}

// exprList : expr (',' expr)*
// One expression is itself; several (`x, y` after `=` or `return`) are the
// list of them, Python's tuple.
Result<ast::ExprPtr> AstBuilder::BuildExprList(TfgParser::ExprListContext* ctx) {
  std::vector<TfgParser::ExprContext*> exprs = ctx->expr();
  if (exprs.size() == 1) return BuildExpr(exprs[0]);
  auto list = std::make_unique<ast::ListLit>(Span(ctx));
  for (auto* e : exprs) {
    TFG_ASSIGN_OR_RETURN(ast::ExprPtr element, BuildExpr(e));
    list->elements.push_back(std::move(element));
  }
  return ast::ExprPtr(std::move(list));
}

// assignOp : '=' | '+=' | '-=' | '*=' | '/=' | '%=' | '@='
// Only names, indexing and attributes can be assigned to.
Result<ast::StmtPtr> AstBuilder::BuildAssign(TfgParser::SimpleStmtContext* ctx, std::vector<ast::ExprPtr> targets) {
  for (const ast::ExprPtr& target : targets) {
    ast::ExprKind kind = target->kind;
    if (kind != ast::ExprKind::kName && kind != ast::ExprKind::kIndex && kind != ast::ExprKind::kAttribute) {
      return SyntaxError("invalid assignment target", target->span);
    }
  }
  TFG_ASSIGN_OR_RETURN(ast::ExprPtr value, BuildExprList(ctx->exprList(1)));
  const Token* op = ctx->assignOp()->getStart();
  if (op->getType() == TfgParser::ASSIGN) {
    auto assign = std::make_unique<ast::Assign>(Span(ctx));
    assign->targets = std::move(targets);
    assign->value = std::move(value);
    return ast::StmtPtr(std::move(assign));
  }
  if (targets.size() > 1) {
    return SyntaxError(fmt::format("'{}' needs exactly one target", op->getText()), text_.TokenSpan(op));
  }
  auto aug = std::make_unique<ast::AugAssign>(Span(ctx), BinaryOpOf(op->getType()).value_or(ast::BinaryOp::kAdd));
  aug->target = std::move(targets[0]);
  aug->value = std::move(value);
  return ast::StmtPtr(std::move(aug));
}

// fnDef : 'fn' NAME '(' params? ')' block
Result<ast::StmtPtr> AstBuilder::BuildFnDef(TfgParser::FnDefContext* ctx) {
  TFG_ASSIGN_OR_RETURN(auto def, BuildFunction(ctx->NAME()->getText(), ctx->params(), ctx->block(), Span(ctx)));
  return MakeStmt<ast::FnDef>(Span(ctx), std::move(def));
}

Result<std::shared_ptr<ast::FunctionDef>> AstBuilder::BuildFunction(std::string name, TfgParser::ParamsContext* params,
                                                                    TfgParser::BlockContext* body, SourceSpan span) {
  auto def = std::make_shared<ast::FunctionDef>();
  def->name = std::move(name);
  def->span = std::move(span);
  if (params != nullptr) {
    TFG_ASSIGN_OR_RETURN(def->params, BuildParams(params));
  }
  TFG_ASSIGN_OR_RETURN(def->body, BuildBlock(body));
  return def;
}

// params : param (',' param)* ','?      param : NAME ('=' expr)?
Result<std::vector<ast::Param>> AstBuilder::BuildParams(TfgParser::ParamsContext* ctx) {
  std::vector<ast::Param> params;
  for (auto* p : ctx->param()) {
    ast::Param param{p->NAME()->getText(), nullptr, Span(p)};
    for (const ast::Param& other : params) {
      if (other.name == param.name) return SyntaxError(fmt::format("duplicate parameter '{}'", param.name), param.span);
    }
    if (p->expr() != nullptr) {
      TFG_ASSIGN_OR_RETURN(param.default_value, BuildExpr(p->expr()));
    } else if (!params.empty() && params.back().default_value != nullptr) {
      return SyntaxError("parameter without a default follows a parameter with a default", param.span);
    }
    params.push_back(std::move(param));
  }
  return params;
}

// ifStmt : 'if' expr block (NEWLINE* elseIf)* (NEWLINE* 'else' block)?
// elseIf : ('else' 'if' | 'elif') expr block
// Each `else if` becomes an If alone in the previous else_body. The chain is
// built from its last branch back, so long chains need no recursion here.
Result<ast::StmtPtr> AstBuilder::BuildIf(TfgParser::IfStmtContext* ctx) {
  SourceSpan span = Span(ctx);
  std::vector<TfgParser::BlockContext*> blocks = ctx->block();
  ast::Block tail;
  if (blocks.size() > 1) {
    TFG_ASSIGN_OR_RETURN(tail, BuildBlock(blocks[1]));
  }
  std::vector<TfgParser::ElseIfContext*> branches = ctx->elseIf();
  if (branches.size() >= static_cast<size_t>(kMaxAstDepth)) {
    return SyntaxError(fmt::format("too many 'else if' branches (the limit is {})", kMaxAstDepth - 1),
                       Span(branches.back()));
  }
  for (size_t i = branches.size(); i-- > 0;) {
    auto branch = std::make_unique<ast::If>(Join(Span(branches[i]), span));
    TFG_ASSIGN_OR_RETURN(branch->cond, BuildExpr(branches[i]->expr()));
    TFG_ASSIGN_OR_RETURN(branch->then_body, BuildBlock(branches[i]->block()));
    branch->else_body = std::move(tail);
    tail = ast::Block();
    tail.push_back(std::move(branch));
  }
  auto node = std::make_unique<ast::If>(span);
  TFG_ASSIGN_OR_RETURN(node->cond, BuildExpr(ctx->expr()));
  TFG_ASSIGN_OR_RETURN(node->then_body, BuildBlock(blocks[0]));
  node->else_body = std::move(tail);
  return ast::StmtPtr(std::move(node));
}

// forStmt : 'for' NAME (',' NAME)* 'in' expr block
Result<ast::StmtPtr> AstBuilder::BuildFor(TfgParser::ForStmtContext* ctx) {
  auto node = std::make_unique<ast::For>(Span(ctx));
  for (auto* name : ctx->NAME()) node->vars.push_back(name->getText());
  TFG_ASSIGN_OR_RETURN(node->iterable, BuildExpr(ctx->expr()));
  TFG_ASSIGN_OR_RETURN(node->body, BuildBlock(ctx->block()));
  return ast::StmtPtr(std::move(node));
}

// whileStmt : 'while' expr block
Result<ast::StmtPtr> AstBuilder::BuildWhile(TfgParser::WhileStmtContext* ctx) {
  auto node = std::make_unique<ast::While>(Span(ctx));
  TFG_ASSIGN_OR_RETURN(node->cond, BuildExpr(ctx->expr()));
  TFG_ASSIGN_OR_RETURN(node->body, BuildBlock(ctx->block()));
  return ast::StmtPtr(std::move(node));
}

// withStmt : 'with' expr ('as' NAME)? block
Result<ast::StmtPtr> AstBuilder::BuildWith(TfgParser::WithStmtContext* ctx) {
  auto node = std::make_unique<ast::With>(Span(ctx));
  TFG_ASSIGN_OR_RETURN(node->context, BuildExpr(ctx->expr()));
  if (ctx->NAME() != nullptr) node->as_name = ctx->NAME()->getText();
  TFG_ASSIGN_OR_RETURN(node->body, BuildBlock(ctx->block()));
  return ast::StmtPtr(std::move(node));
}

// tryStmt : 'try' block (NEWLINE* exceptClause)+
// exceptClause : 'except' kind=NAME? ('as' alias=NAME)? block
Result<ast::StmtPtr> AstBuilder::BuildTry(TfgParser::TryStmtContext* ctx) {
  auto node = std::make_unique<ast::Try>(Span(ctx));
  TFG_ASSIGN_OR_RETURN(node->body, BuildBlock(ctx->block()));
  for (auto* clause : ctx->exceptClause()) {
    ast::ExceptClause handler;
    handler.span = Span(clause);
    if (clause->kind != nullptr) handler.error_kind = clause->kind->getText();
    if (clause->alias != nullptr) handler.as_name = clause->alias->getText();
    TFG_ASSIGN_OR_RETURN(handler.body, BuildBlock(clause->block()));
    node->handlers.push_back(std::move(handler));
  }
  return ast::StmtPtr(std::move(node));
}

// importStmt : 'import' (NAME | STRING) ('as' alias=NAME)?
// A path's default binding is its file stem: "lib/util.tfg" binds `util`.
Result<ast::StmtPtr> AstBuilder::BuildImport(TfgParser::ImportStmtContext* ctx) {
  auto node = std::make_unique<ast::Import>(Span(ctx));
  node->is_path = ctx->STRING() != nullptr;
  if (node->is_path) {
    TFG_ASSIGN_OR_RETURN(node->module, DecodeString(ctx->STRING()->getSymbol()));
  } else {
    node->module = ctx->NAME(0)->getText();
  }
  if (ctx->alias != nullptr) {
    node->alias = ctx->alias->getText();
  } else if (!node->is_path) {
    node->alias = node->module;
  } else {
    std::string_view stem = node->module;
    if (size_t slash = stem.find_last_of("/\\"); slash != std::string_view::npos) stem.remove_prefix(slash + 1);
    stem = stem.substr(0, stem.find('.'));
    if (!IsIdentifier(stem)) {
      return SyntaxError(fmt::format("cannot name a module after \"{}\"; add 'as NAME'", node->module),
                         text_.TokenSpan(ctx->STRING()->getSymbol()));
    }
    node->alias = std::string(stem);
  }
  return ast::StmtPtr(std::move(node));
}

// returnStmt : 'return' expr?
Result<ast::StmtPtr> AstBuilder::BuildReturn(TfgParser::ReturnStmtContext* ctx) {
  auto node = std::make_unique<ast::Return>(Span(ctx));
  if (ctx->exprList() != nullptr) {
    TFG_ASSIGN_OR_RETURN(node->value, BuildExprList(ctx->exprList()));
  }
  return ast::StmtPtr(std::move(node));
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
