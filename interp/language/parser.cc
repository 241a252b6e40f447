// The AST builder: ANTLR's parse tree into the AST of interp/language/ast.h,
// one function per grammar rule (the driver is interp/language/parser_driver.cc).
// This file holds the statement rules; expressions are parser_expressions.cc,
// atoms and literals parser_literals.cc, Python habits parser_python.cc.
#include <algorithm>
#include <optional>
#include <string_view>

#include "interp/language/parser_ast_builder.h"
#include "interp/language/parser_builder_helpers.h"

namespace tfg::parse {
namespace {

template <typename T, typename... Args>
ast::StmtPtr MakeStmt(Args&&... args) {
  return std::make_unique<T>(std::forward<Args>(args)...);
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

}  // namespace tfg::parse
