// The AST builder of the front end: ANTLR's parse tree of one top-level
// statement into the AST of interp/language/ast.h, one function per grammar
// rule (interp/language/parser.cc). Includes ANTLR headers: front end only.
#pragma once

#include "interp/language/parser.h"
#include "interp/language/parser_support.h"

namespace tfg::parse {

// An expression inside a string, at bytes [begin, end) of `outer`'s text (an
// f-string's field), parsed with spans into the file (parser_driver.cc).
Result<ast::ExprPtr> ParseEmbeddedExpr(const TextMap& outer, size_t begin, size_t end, const ParseLimits& limits);

class AstBuilder {
 public:
  AstBuilder(const TextMap& text, const ParseLimits& limits) : text_(text), limits_(limits) {}

  Result<ast::StmtPtr> BuildStatement(TfgParser::StatementContext* ctx);

 private:
  using ExprResult = Result<ast::ExprPtr>;
  using StmtResult = Result<ast::StmtPtr>;

  SourceSpan Span(antlr4::ParserRuleContext* ctx) const {
    const Token* start = ctx->getStart();
    const Token* stop = ctx->getStop();
    if (stop == nullptr || stop->getTokenIndex() < start->getTokenIndex()) stop = start;  // empty rule
    return Join(text_.TokenSpan(start), text_.TokenSpan(stop));
  }

  Result<ast::Block> BuildStmtList(TfgParser::StmtListContext* ctx);
  Result<ast::Block> BuildBlock(TfgParser::BlockContext* ctx) { return BuildStmtList(ctx->stmtList()); }
  StmtResult BuildSimpleStmt(TfgParser::SimpleStmtContext* ctx);
  StmtResult BuildAssign(TfgParser::SimpleStmtContext* ctx, std::vector<ast::ExprPtr> targets);
  ExprResult BuildExprList(TfgParser::ExprListContext* ctx);
  StmtResult BuildFnDef(TfgParser::FnDefContext* ctx);
  Result<std::shared_ptr<ast::FunctionDef>> BuildFunction(std::string name, TfgParser::ParamsContext* params,
                                                          TfgParser::BlockContext* body, SourceSpan span);
  Result<std::vector<ast::Param>> BuildParams(TfgParser::ParamsContext* ctx);
  StmtResult BuildIf(TfgParser::IfStmtContext* ctx);
  StmtResult BuildFor(TfgParser::ForStmtContext* ctx);
  StmtResult BuildWhile(TfgParser::WhileStmtContext* ctx);
  StmtResult BuildWith(TfgParser::WithStmtContext* ctx);
  StmtResult BuildTry(TfgParser::TryStmtContext* ctx);
  StmtResult BuildImport(TfgParser::ImportStmtContext* ctx);
  StmtResult BuildReturn(TfgParser::ReturnStmtContext* ctx);

  template <typename Operand>
  ExprResult FoldBinary(antlr4::ParserRuleContext* ctx, ExprResult (AstBuilder::*build)(Operand*));
  ExprResult BuildExpr(TfgParser::ExprContext* ctx);
  ExprResult BuildAnd(TfgParser::AndExprContext* ctx);
  ExprResult BuildNot(TfgParser::NotExprContext* ctx);
  ExprResult BuildComparison(TfgParser::ComparisonContext* ctx);
  ExprResult BuildArith(TfgParser::ArithContext* ctx);
  ExprResult BuildTerm(TfgParser::TermContext* ctx);
  ExprResult BuildFactor(TfgParser::FactorContext* ctx);
  ExprResult BuildPower(TfgParser::PowerContext* ctx);
  ExprResult BuildPostfix(TfgParser::PostfixContext* ctx);
  ExprResult BuildCall(ast::ExprPtr callee, TfgParser::CallTrailerContext* ctx, SourceSpan span);
  ExprResult BuildIndex(ast::ExprPtr object, TfgParser::IndexTrailerContext* ctx, SourceSpan span);
  Result<ast::Subscript> BuildSubscript(TfgParser::SubscriptContext* ctx);
  ExprResult BuildAtom(TfgParser::AtomContext* ctx);
  ExprResult BuildLiteral(const Token* token);
  ExprResult BuildInt(const Token* token, SourceSpan span);
  ExprResult BuildFloat(const Token* token, SourceSpan span);
  Result<std::string> DecodeString(const Token* token);
  Status CheckLiteralSize(antlr4::ParserRuleContext* ctx, const char* what) const;
  Status CheckLiteralSize(size_t begin, size_t end, const char* what) const;
  ExprResult BuildList(TfgParser::ListLitContext* ctx);
  ExprResult BuildDict(TfgParser::DictLitContext* ctx);
  ExprResult BuildLambda(TfgParser::LambdaContext* ctx);
  // parser_python.cc: what Python programmers write out of habit.
  ExprResult BuildTuple(TfgParser::GroupContext* ctx);
  ExprResult BuildListComp(TfgParser::ListLitContext* ctx);
  ExprResult BuildDictComp(TfgParser::DictLitContext* ctx);
  Status BuildCompFor(TfgParser::CompForContext* ctx, ast::Comprehension& into);
  ExprResult BuildFString(const Token* token);
  Status AddFStringField(std::string_view raw, size_t base, size_t open, size_t close, ast::FString& into);
  // Decodes the escapes of `raw` (string literal text without its quotes),
  // which starts at byte `base` of the file.
  Result<std::string> DecodeEscapes(std::string_view raw, size_t base);

  const TextMap& text_;
  const ParseLimits& limits_;
};

}  // namespace tfg::parse
