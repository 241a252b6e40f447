// Internals of the front end, shared by interp/language/parser.cc (the AST
// builder), parser_driver.cc (the driver), parser_lexer.cc and
// parser_number_list.cc (number lists) and parser_support.cc (source
// positions, syntax error messages, nesting limits). It includes ANTLR
// headers, so nothing outside the front end may include it (see
// interp/language/parser.h).
#pragma once

#include <antlr4-runtime.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "TfgParser.h"
#include "interp/language/ast.h"
#include "ops/core/status.h"

namespace tfg::parse {

using antlr4::Token;
using gen::TfgParser;

// Deeper bracket nesting is refused before parsing: ANTLR's recursive descent,
// the AST builder and the evaluator all recurse once per level.
constexpr size_t kMaxBracketDepth = 200;
// A backstop for recursion that brackets don't count (long chains of prefix
// operators or `**`): the most grammar rules active at once. 200 brackets
// need about 13 rules each.
constexpr int kMaxRuleDepth = 3000;
// The evaluator and the AST's destructors recurse once per AST level, and
// long operator chains (a + b + ...) nest without any bracket.
constexpr int kMaxAstDepth = 1000;

inline Status SyntaxError(std::string message, SourceSpan span) {
  return Status(Code::kInvalidArgument, std::move(message), std::move(span));
}

// "256 MiB", "1.5 MiB", "300 bytes": sizes in limit messages.
std::string DescribeSize(size_t bytes);

inline SourceSpan Join(const SourceSpan& first, const SourceSpan& last) {
  return SourceSpan{first.file, first.line, first.col, last.end_line, last.end_col};
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes
// there are not valid UTF-8 (overlong forms and surrogates included).
size_t Utf8SequenceLength(std::string_view s, size_t i);

// The script as ANTLR sees it and the way back. ANTLR's converter throws on
// invalid UTF-8, so each bad byte becomes U+FFFD (which the lexer rejects
// outside strings). ANTLR counts code points; spans count bytes of the
// original text, as the caret line of FormatDiagnostic does. The map keeps
// one entry per multi-byte character only, so ASCII text costs nothing.
class TextMap {
 public:
  explicit TextMap(std::shared_ptr<const SourceFile> file);

  const std::shared_ptr<const SourceFile>& file() const { return file_; }
  // Spans name `file` instead of the text's own: an f-string's expression
  // is parsed from a copy padded to its place, so its spans point into the
  // real file (line, column and excerpt).
  void ReportSpansIn(std::shared_ptr<const SourceFile> file) { span_file_ = std::move(file); }
  // The file's own text when it is valid UTF-8 without a byte order mark.
  const std::string& antlr_text() const { return copied_ ? antlr_text_ : text(); }
  const std::string& text() const { return file_->text(); }
  // Every byte is ASCII: code point indexes are byte offsets.
  bool ascii() const { return !copied_ && anchors_.size() == 1; }

  // Byte offset of the code point ANTLR numbers `index` (the end of the text
  // past the last one).
  size_t Offset(size_t index) const;
  // The code point index of the character starting at byte `offset`.
  size_t Index(size_t offset) const;

  // From the byte at `begin` to the byte at `last`, both included.
  SourceSpan Span(size_t begin, size_t last) const {
    auto [line, col] = Position(begin);
    auto [end_line, end_col] = Position(std::max(begin, last));
    return SourceSpan{span_file_ ? span_file_ : file_, line, col, end_line, end_col};
  }
  // The token's text; not for EOF (see SyntaxErrors::TokenSpan).
  SourceSpan TokenSpan(const Token* t) const {
    size_t begin = Offset(t->getStartIndex());
    size_t stop = t->getStopIndex() < t->getStartIndex() ? t->getStartIndex() : t->getStopIndex();
    return Span(begin, Offset(stop));
  }
  // The token's original bytes (ANTLR's getText would show U+FFFD instead).
  std::string_view Bytes(const Token* t) const {
    if (t->getType() == Token::EOF || t->getStopIndex() < t->getStartIndex()) return {};
    size_t begin = Offset(t->getStartIndex()), end = Offset(t->getStopIndex() + 1);
    return std::string_view(text()).substr(begin, end - begin);
  }

 private:
  std::pair<int, int> Position(size_t byte) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), byte);
    size_t line = static_cast<size_t>(it - line_starts_.begin());
    return {static_cast<int>(line), static_cast<int>(byte - line_starts_[line - 1] + 1)};
  }

  // Where code point indexes and byte offsets stop moving in step: after
  // each character of more than one byte, code point `index` is at `offset`.
  struct Anchor {
    size_t index, offset;
  };

  std::shared_ptr<const SourceFile> file_;
  std::shared_ptr<const SourceFile> span_file_;  // null: file_
  bool copied_ = false;
  std::string antlr_text_;           // only when it differs from the file's text
  size_t code_points_ = 0;
  std::vector<Anchor> anchors_;      // ascending, starting with {0, 0}
  std::vector<size_t> line_starts_;  // byte offset where each line begins
};

bool IsOpener(size_t type);
bool IsCloser(size_t type);
size_t CloserOf(size_t opener);

// The first error the parser ran into, captured before the parse is
// abandoned (the exception's pointers die with it).
struct ParseIssue {
  size_t token = 0;  // index of the offending token
  antlr4::misc::IntervalSet expected;
  bool expected_known = false;  // false when the failing decision began earlier
  size_t rule = 0;              // the rule being parsed
};

struct BracketIssue {
  size_t token = 0;  // the token the message points at
  std::string message;
  std::optional<size_t> opener;  // the bracket left open, if any
  bool too_deep = false;         // refused before parsing, whatever else is wrong
};

// Turns what the lexer and parser found into messages for people. Holds the
// full token list, so it can look back for open brackets.
class SyntaxErrors {
 public:
  SyntaxErrors(const TextMap& text, const std::vector<Token*>& tokens, const antlr4::dfa::Vocabulary& vocab)
      : text_(text), tokens_(tokens), vocab_(vocab) {}

  std::optional<BracketIssue> CheckBrackets() const;
  Status Report(const std::optional<ParseIssue>& parse, const std::optional<BracketIssue>& brackets) const;

  // For EOF: just after the last real token, where the missing text belongs.
  SourceSpan TokenSpan(size_t index) const;

 private:
  std::string Describe(const Token* t) const;
  std::string DescribeExpected(size_t type) const;
  std::string OpenerPhrase(size_t opener) const;
  std::string CloseMessage(size_t opener, size_t found) const;
  std::optional<size_t> InnermostOpen(size_t before) const;
  std::string ParseMessage(const ParseIssue& issue) const;
  std::optional<std::string> ExpectedSetMessage(const ParseIssue& issue, const std::string& found) const;
  Status LexicalError(size_t index) const;
  Status BracketStatus(const BracketIssue& issue) const;
  size_t TypeBefore(size_t index) const {
    return index == 0 ? Token::INVALID_TYPE : tokens_[index - 1]->getType();
  }
  int LineOf(size_t index) const { return TokenSpan(index).line; }

  const TextMap& text_;
  const std::vector<Token*>& tokens_;
  const antlr4::dfa::Vocabulary& vocab_;
};

// Stops the parse at the first error, recording it instead of printing it
// and resynchronizing as ANTLR's default strategy would.
class FirstErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  std::optional<ParseIssue> issue;

  void sync(antlr4::Parser*) override {}
  Token* recoverInline(antlr4::Parser* parser) override { throw antlr4::InputMismatchException(parser); }
  void recover(antlr4::Parser*, std::exception_ptr) override { throw antlr4::ParseCancellationException(); }
  void reportError(antlr4::Parser*, const antlr4::RecognitionException& e) override {
    if (issue || e.getOffendingToken() == nullptr) return;
    ParseIssue found;
    found.token = e.getOffendingToken()->getTokenIndex();
    found.expected = e.getExpectedTokens();
    found.expected_known = true;
    if (auto* nva = dynamic_cast<const antlr4::NoViableAltException*>(&e)) {
      found.expected_known = nva->getStartToken() == e.getOffendingToken();
    }
    found.rule = e.getCtx() ? e.getCtx()->getRuleIndex() : 0;
    issue = std::move(found);
  }
};

// Bounds the parser's recursion (see kMaxRuleDepth).
class RuleDepthGuard : public antlr4::tree::ParseTreeListener {
 public:
  std::optional<size_t> tripped_at;  // token index

  void enterEveryRule(antlr4::ParserRuleContext* ctx) override {
    if (++depth_ <= kMaxRuleDepth) return;
    tripped_at = ctx->getStart() ? ctx->getStart()->getTokenIndex() : 0;
    throw antlr4::ParseCancellationException();
  }
  void exitEveryRule(antlr4::ParserRuleContext*) override { --depth_; }
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}

 private:
  int depth_ = 0;
};

// Bounds the tokens of one top-level statement, and with them the memory
// its parse tree takes (several hundred bytes per token: a context per
// grammar rule an element passes through).
class StatementSizeGuard : public antlr4::tree::ParseTreeListener {
 public:
  explicit StatementSizeGuard(size_t max_tokens) : max_tokens_(max_tokens) {}
  std::optional<size_t> tripped_at;  // token index of the statement's first token

  void enterEveryRule(antlr4::ParserRuleContext* ctx) override {
    if (!first_token_ && ctx->getRuleIndex() == TfgParser::RuleStatement && ctx->getStart() != nullptr) {
      first_token_ = ctx->getStart()->getTokenIndex();
    }
  }
  void exitEveryRule(antlr4::ParserRuleContext*) override {}
  void visitTerminal(antlr4::tree::TerminalNode*) override {
    if (++tokens_ <= max_tokens_) return;
    tripped_at = first_token_.value_or(0);
    throw antlr4::ParseCancellationException();
  }
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}

 private:
  size_t max_tokens_;
  size_t tokens_ = 0;
  std::optional<size_t> first_token_;
};

// Packs a NUMBER_LIST token (see interp/language/parser_number_list.h) into
// one ast::NumberList. A number that does not fit its type is an error at
// that number, worded as in an ordinary list.
Result<ast::ExprPtr> BuildNumberList(const TextMap& text, const Token* token);

// The depth of `e`'s expression tree, or more than `cap` when it is deeper
// than that; recursion stops at `cap`.
int MeasureDepth(const ast::Expr* e, int cap);

// Refuses a program nested more than kMaxAstDepth levels (statements and
// expressions together).
Status CheckAstDepth(const ast::Block& program);

}  // namespace tfg::parse
