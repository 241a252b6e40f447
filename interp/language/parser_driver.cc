// Front end: runs the ANTLR-generated lexer and parser over a script and has
// AstBuilder (interp/language/parser.cc) turn the parse tree into the AST of
// interp/language/ast.h.
//
// The text is first made valid UTF-8 for ANTLR (TextMap keeps the original
// byte offsets, so spans and string literals use the user's bytes; ASCII
// text is read in place, see parser_char_stream.h), lexed in
// full (number lists become one token each, see parser_number_list.h),
// checked for balanced and not too deeply nested brackets, then parsed one
// top-level statement at a time with an error strategy that stops at the
// first error. Each statement's parse tree is built into the AST and freed
// before the next one is parsed, so memory follows the size of the biggest
// statement, not of the file. Nothing here throws out of ParseProgram,
// prints, or aborts, whatever the input; running out of memory is an error
// at the statement being read.
#include <algorithm>
#include <new>
#include <optional>

#include "interp/language/parser_ast_builder.h"
#include "interp/language/parser_char_stream.h"
#include "interp/language/parser_lexer.h"

namespace tfg {
namespace {

using namespace tfg::parse;
using antlr4::atn::PredictionMode;

// One attempt at one top-level statement.
struct TopLevelParse {
  TfgParser::TopLevelContext* tree = nullptr;  // null when it failed
  std::optional<ParseIssue> issue;
  std::optional<size_t> too_deep_at;  // token index
  std::optional<size_t> too_large_at;  // token index of the statement's start
};

TopLevelParse ParseTopLevel(TfgParser& parser, antlr4::CommonTokenStream& tokens, size_t start,
                            PredictionMode mode, size_t max_statement_tokens) {
  parser.reset();
  tokens.seek(start);
  auto strategy = std::make_shared<FirstErrorStrategy>();
  parser.setErrorHandler(strategy);
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(mode);
  RuleDepthGuard guard;
  parser.addParseListener(&guard);
  StatementSizeGuard size_guard(max_statement_tokens);
  parser.addParseListener(&size_guard);
  TopLevelParse result;
  try {
    result.tree = parser.topLevel();
  } catch (const antlr4::ParseCancellationException&) {
  }
  parser.removeParseListeners();
  result.issue = strategy->issue;
  result.too_deep_at = guard.tripped_at;
  result.too_large_at = size_guard.tripped_at;
  if (result.issue || result.too_deep_at || result.too_large_at) result.tree = nullptr;
  return result;
}

// ANTLR's two-stage parsing: SLL prediction, fast and frugal, is right for
// nearly all input; only when it fails is the statement parsed again with
// full LL, which finds the right parse or the real error.
// A statement past a limit is past it in either mode.
TopLevelParse ParseTopLevel(TfgParser& parser, antlr4::CommonTokenStream& tokens, size_t start,
                            size_t max_statement_tokens) {
  TopLevelParse sll = ParseTopLevel(parser, tokens, start, PredictionMode::SLL, max_statement_tokens);
  if (sll.tree != nullptr || sll.too_deep_at || sll.too_large_at) return sll;
  return ParseTopLevel(parser, tokens, start, PredictionMode::LL, max_statement_tokens);
}

// topLevel : sep* (statement sep?)?
// Past a statement without a separator, or past nothing, only the end of
// the file may come; anything else is the error that parsing the file as
// one `stmtList EOF` would stop at.
std::optional<ParseIssue> CheckTopLevelEnd(TfgParser::TopLevelContext* tree, antlr4::CommonTokenStream& tokens) {
  bool separated = tree->statement() != nullptr && tree->sep().size() > 0 &&
                   tree->sep().back()->getStart()->getTokenIndex() > tree->statement()->getStart()->getTokenIndex();
  if (separated || tokens.LA(1) == Token::EOF) return std::nullopt;
  ParseIssue issue;
  issue.token = tokens.index();
  issue.expected = antlr4::misc::IntervalSet::of(Token::EOF);
  issue.expected_known = true;
  issue.rule = TfgParser::RuleTopLevel;
  return issue;
}

// Why numeric tables are not what hits a token limit.
constexpr const char* kNumberListHint =
    " (a list literal of nothing but numbers is one token at any size; lists of strings, names or "
    "expressions are a few tokens per element)";

Status OutOfMemory(const TextMap& text, size_t byte) {
  SourceSpan at = text.Span(std::min(byte, text.text().size()), std::min(byte, text.text().size()));
  return Status(Code::kResourceExhausted,
                fmt::format("out of memory parsing the script ({}) at this statement; split the script, "
                            "or load big data from a file (load_npy, load_csv)",
                            DescribeSize(text.text().size())),
                std::move(at));
}

// Lexes, checks brackets, parses and builds. ANTLR may throw; the caller
// catches what this does not.
Result<std::shared_ptr<ast::Program>> Parse(std::shared_ptr<const SourceFile> file, const ParseLimits& limits,
                                            std::shared_ptr<const SourceFile> span_file = nullptr) {
  TextMap text(file);
  if (span_file) text.ReportSpansIn(std::move(span_file));
  std::unique_ptr<antlr4::CharStream> input;
  if (text.ascii()) {
    input = std::make_unique<AsciiCharStream>(text.text(), "");
  } else {
    input = std::make_unique<antlr4::ANTLRInputStream>(text.antlr_text());
  }
  NumberListLexer lexer(input.get(), text, limits.max_tokens);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  try {
    tokens.fill();
  } catch (const std::bad_alloc&) {
    return OutOfMemory(text, text.Offset(lexer.last_token_start()));
  } catch (const TokenLimitReached& reached) {
    const size_t at = text.Offset(reached.start);
    return SyntaxError(fmt::format("the script is more than {} tokens long, the limit; split it into modules, "
                                   "or load big data from a file (load_npy, load_csv){}",
                                   limits.max_tokens, kNumberListHint),
                       text.Span(at, at));
  }
  TfgParser parser(&tokens);
  parser.removeErrorListeners();
  const std::vector<Token*>& all = tokens.getTokens();
  SyntaxErrors errors(text, all, parser.getVocabulary());

  std::optional<BracketIssue> brackets = errors.CheckBrackets();
  if (brackets && brackets->too_deep) {
    return SyntaxError(brackets->message, errors.TokenSpan(brackets->token));
  }
  auto program = std::make_shared<ast::Program>();
  program->file = std::move(file);
  AstBuilder builder(text, limits);
  // The first error building the AST; a syntax error further on still wins,
  // as it would if the whole file were parsed first.
  Status build_status;
  for (size_t start = 0;;) {
    try {
      TopLevelParse parsed = ParseTopLevel(parser, tokens, start, limits.max_statement_tokens);
      if (parsed.too_deep_at) {
        return SyntaxError("expression nested too deeply to parse", errors.TokenSpan(*parsed.too_deep_at));
      }
      if (parsed.too_large_at) {
        parser.getTreeTracker().reset();
        return SyntaxError(fmt::format("this statement is more than {} tokens long, the limit for one statement; "
                                       "load big data from a file (load_npy, load_csv){}",
                                       limits.max_statement_tokens, kNumberListHint),
                           errors.TokenSpan(*parsed.too_large_at));
      }
      if (parsed.tree == nullptr) return errors.Report(parsed.issue, brackets);
      if (std::optional<ParseIssue> stray = CheckTopLevelEnd(parsed.tree, tokens)) {
        return errors.Report(stray, brackets);
      }
      if (TfgParser::StatementContext* statement = parsed.tree->statement(); statement && build_status.ok()) {
        Result<ast::StmtPtr> stmt = builder.BuildStatement(statement);
        if (stmt.ok()) {
          program->body.push_back(std::move(*stmt));
        } else {
          build_status = stmt.status();
        }
      }
    } catch (const std::bad_alloc&) {
      parser.getTreeTracker().reset();
      return OutOfMemory(text, text.Offset(all[std::min(start, all.size() - 1)]->getStartIndex()));
    }
    parser.getTreeTracker().reset();  // this statement's parse tree
    start = tokens.index();
    if (tokens.LA(1) == Token::EOF) break;
  }
  if (brackets) return errors.Report(std::nullopt, brackets);
  TFG_RETURN_IF_ERROR(build_status);
  TFG_RETURN_IF_ERROR(CheckAstDepth(program->body));
  return program;
}

// The line and column of byte `offset` of `text`, as a one-character span.
SourceSpan SpanAt(const std::shared_ptr<const SourceFile>& file, size_t offset) {
  const std::string& text = file->text();
  offset = std::min(offset, text.size());
  auto begin = text.begin(), at = text.begin() + static_cast<std::ptrdiff_t>(offset);
  int line = 1 + static_cast<int>(std::count(begin, at, '\n'));
  size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  line_start = (line_start == std::string::npos || offset == 0) ? 0 : line_start + 1;
  int col = static_cast<int>(offset - line_start) + 1;
  return SourceSpan{file, line, col, line, col};
}

}  // namespace

namespace parse {

// The expression is parsed from a copy of its line padded to the same line
// and byte column, `(` in place of the `{` before it and `)` after it, so its
// spans (taken in `outer`'s file) are where the user wrote it.
Result<ast::ExprPtr> ParseEmbeddedExpr(const TextMap& outer, size_t begin, size_t end, const ParseLimits& limits) {
  SourceSpan at = outer.Span(begin, begin);
  if (at.col < 2) return Internal("parser: an embedded expression must follow its brace");
  std::string padded(static_cast<size_t>(at.line - 1), '\n');
  padded.append(static_cast<size_t>(at.col - 2), ' ');
  padded += '(';
  padded.append(outer.text(), begin, end - begin);
  padded += ")\n";
  auto file = std::make_shared<SourceFile>(at.file->path(), std::move(padded));
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<ast::Program> program, Parse(file, limits, at.file));
  if (program->body.size() != 1 || program->body[0]->kind != ast::StmtKind::kExpr) {
    return SyntaxError("expected one expression inside the braces of an f-string", outer.Span(begin, end - 1));
  }
  return std::move(static_cast<ast::ExprStmt&>(*program->body[0]).expr);
}

}  // namespace parse

Result<std::shared_ptr<ast::Program>> ParseProgram(std::shared_ptr<const SourceFile> file,
                                                   const ParseLimits& limits) {
  if (file == nullptr) return InvalidArgument("no source file to parse");
  if (file->text().size() > limits.max_script_bytes) {
    return SyntaxError(fmt::format("the script is {}, larger than the limit of {}; split it into modules, "
                                   "or load big data from a file (load_npy, load_csv)",
                                   DescribeSize(file->text().size()), DescribeSize(limits.max_script_bytes)),
                       SpanAt(file, limits.max_script_bytes));
  }
  try {
    return Parse(file, limits);
  } catch (const std::bad_alloc&) {
    return Status(Code::kResourceExhausted,
                  fmt::format("out of memory parsing the script ({})", DescribeSize(file->text().size())),
                  SpanAt(file, 0));
  } catch (const std::exception& e) {
    return Internal("parser failed: {}", e.what());
  } catch (...) {
    return Internal("parser failed");
  }
}

// Lexes `text` and checks whether it stops inside a bracket or a string: a
// closer that matches nothing means an error, not a need for more lines.
bool NeedsMoreInput(const std::string& text) {
  try {
    TextMap map(std::make_shared<SourceFile>("<input>", text));
    antlr4::ANTLRInputStream input(map.antlr_text());
    gen::TfgLexer lexer(&input);
    lexer.removeErrorListeners();
    std::vector<size_t> open;
    for (auto token = lexer.nextToken(); token->getType() != Token::EOF; token = lexer.nextToken()) {
      size_t type = token->getType();
      if (type == TfgParser::UNTERMINATED_STRING) return map.Offset(token->getStopIndex() + 1) == text.size();
      if (IsOpener(type)) open.push_back(type);
      if (IsCloser(type)) {
        if (open.empty() || CloserOf(open.back()) != type) return false;
        open.pop_back();
      }
    }
    return !open.empty();
  } catch (...) {
    return false;
  }
}

}  // namespace tfg
