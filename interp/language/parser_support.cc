// Source positions, syntax error messages and nesting limits for the front
// end; see interp/language/parser_support.h.
#include "interp/language/parser_support.h"

#include <algorithm>

namespace tfg::parse {
namespace {

// The code point that `bytes`, one whole valid UTF-8 sequence, encodes.
char32_t DecodeUtf8(std::string_view bytes) {
  if (bytes.empty()) return 0;
  static constexpr unsigned kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  size_t n = std::min<size_t>(bytes.size(), 4);
  char32_t c = static_cast<unsigned char>(bytes[0]) & kLeadMask[n];
  for (size_t i = 1; i < n; ++i) c = (c << 6) | (static_cast<unsigned char>(bytes[i]) & 0x3Fu);
  return c;
}

// Tokens after which a '{' opens a block rather than a dict literal: the end
// of an `if`/`while`/`with`/... header, `)` of fn parameters, else, try.
bool OpensBlock(size_t previous_type) {
  switch (previous_type) {
    case TfgParser::RPAREN: case TfgParser::RBRACK: case TfgParser::RBRACE:
    case TfgParser::NAME: case TfgParser::INT: case TfgParser::FLOAT: case TfgParser::NUMBER_LIST:
    case TfgParser::STRING: case TfgParser::KW_TRUE: case TfgParser::KW_FALSE:
    case TfgParser::KW_NONE: case TfgParser::QUESTION: case TfgParser::KW_ELSE:
    case TfgParser::PY_TRUE: case TfgParser::PY_FALSE: case TfgParser::PY_NONE: case TfgParser::FSTRING:
    case TfgParser::KW_TRY: case TfgParser::KW_EXCEPT:
      return true;
    default:
      return false;
  }
}

// Calls f(child) for each direct sub-expression of `e`; a lambda's body is
// statements, not sub-expressions, and is left out.
template <typename F>
void ForEachChild(const ast::Expr& e, F&& f) {
  auto each = [&](const std::vector<ast::ExprPtr>& exprs) {
    for (const ast::ExprPtr& x : exprs) f(x.get());
  };
  switch (e.kind) {
    case ast::ExprKind::kUnary: f(static_cast<const ast::Unary&>(e).operand.get()); break;
    case ast::ExprKind::kBinary:
      f(static_cast<const ast::Binary&>(e).lhs.get());
      f(static_cast<const ast::Binary&>(e).rhs.get());
      break;
    case ast::ExprKind::kCall:
      f(static_cast<const ast::Call&>(e).callee.get());
      for (const ast::Argument& a : static_cast<const ast::Call&>(e).args) f(a.value.get());
      break;
    case ast::ExprKind::kAttribute: f(static_cast<const ast::Attribute&>(e).object.get()); break;
    case ast::ExprKind::kIndex:
      f(static_cast<const ast::Index&>(e).object.get());
      for (const ast::Subscript& s : static_cast<const ast::Index&>(e).subscripts) {
        for (const ast::ExprPtr* part : {&s.index, &s.start, &s.stop, &s.step}) f(part->get());
      }
      break;
    case ast::ExprKind::kList: each(static_cast<const ast::ListLit&>(e).elements); break;
    case ast::ExprKind::kDict:
      each(static_cast<const ast::DictLit&>(e).keys);
      each(static_cast<const ast::DictLit&>(e).values);
      break;
    case ast::ExprKind::kListComp:
    case ast::ExprKind::kDictComp: {
      const auto& c = static_cast<const ast::Comprehension&>(e);
      f(c.element.get());
      f(c.value.get());
      for (const ast::CompFor& clause : c.clauses) {
        f(clause.iterable.get());
        each(clause.conditions);
      }
      break;
    }
    case ast::ExprKind::kFString:
      for (const ast::FStringPart& part : static_cast<const ast::FString&>(e).parts) f(part.expr.get());
      break;
    default: break;
  }
}

// Finds a node more than kMaxAstDepth levels deep. Its own recursion stops at
// that limit, so it is safe on any tree.
class DepthCheck {
 public:
  Status Block(const ast::Block& block, int depth) {
    for (const ast::StmtPtr& stmt : block) TFG_RETURN_IF_ERROR(Stmt(*stmt, depth));
    return Status::OK();
  }

 private:
  Status Deeper(const char* what, const SourceSpan& span, int depth) {
    if (depth <= kMaxAstDepth) return Status::OK();
    return SyntaxError(fmt::format("{} nested too deeply (the limit is {} levels)", what, kMaxAstDepth), span);
  }

  Status Expr(const ast::Expr* e, int depth);
  Status Function(const ast::FunctionDef& def, int depth) {
    for (const ast::Param& p : def.params) TFG_RETURN_IF_ERROR(Expr(p.default_value.get(), depth));
    return Block(def.body, depth);
  }
  Status Stmt(const ast::Stmt& s, int depth);

  Status Exprs(const std::vector<ast::ExprPtr>& exprs, int depth) {
    for (const ast::ExprPtr& e : exprs) TFG_RETURN_IF_ERROR(Expr(e.get(), depth));
    return Status::OK();
  }
};

Status DepthCheck::Expr(const ast::Expr* e, int depth) {
  if (e == nullptr) return Status::OK();
  TFG_RETURN_IF_ERROR(Deeper("expression", e->span, ++depth));
  if (e->kind == ast::ExprKind::kLambda) return Function(*static_cast<const ast::Lambda*>(e)->def, depth);
  Status status;
  ForEachChild(*e, [&](const ast::Expr* child) {
    if (status.ok()) status = Expr(child, depth);
  });
  return status;
}

Status DepthCheck::Stmt(const ast::Stmt& s, int depth) {
  TFG_RETURN_IF_ERROR(Deeper("statements", s.span, ++depth));
  switch (s.kind) {
    case ast::StmtKind::kExpr: return Expr(static_cast<const ast::ExprStmt&>(s).expr.get(), depth);
    case ast::StmtKind::kAssign: {
      auto& a = static_cast<const ast::Assign&>(s);
      TFG_RETURN_IF_ERROR(Exprs(a.targets, depth));
      return Expr(a.value.get(), depth);
    }
    case ast::StmtKind::kAugAssign: {
      auto& a = static_cast<const ast::AugAssign&>(s);
      TFG_RETURN_IF_ERROR(Expr(a.target.get(), depth));
      return Expr(a.value.get(), depth);
    }
    case ast::StmtKind::kFnDef: return Function(*static_cast<const ast::FnDef&>(s).def, depth);
    case ast::StmtKind::kReturn: return Expr(static_cast<const ast::Return&>(s).value.get(), depth);
    case ast::StmtKind::kIf: {
      auto& i = static_cast<const ast::If&>(s);
      TFG_RETURN_IF_ERROR(Expr(i.cond.get(), depth));
      TFG_RETURN_IF_ERROR(Block(i.then_body, depth));
      return Block(i.else_body, depth);
    }
    case ast::StmtKind::kFor: {
      auto& f = static_cast<const ast::For&>(s);
      TFG_RETURN_IF_ERROR(Expr(f.iterable.get(), depth));
      return Block(f.body, depth);
    }
    case ast::StmtKind::kWhile: {
      auto& w = static_cast<const ast::While&>(s);
      TFG_RETURN_IF_ERROR(Expr(w.cond.get(), depth));
      return Block(w.body, depth);
    }
    case ast::StmtKind::kWith: {
      auto& w = static_cast<const ast::With&>(s);
      TFG_RETURN_IF_ERROR(Expr(w.context.get(), depth));
      return Block(w.body, depth);
    }
    case ast::StmtKind::kTry: {
      auto& t = static_cast<const ast::Try&>(s);
      for (const ast::ExceptClause& h : t.handlers) TFG_RETURN_IF_ERROR(Block(h.body, depth));
      return Block(t.body, depth);
    }
    default: return Status::OK();
  }
}

}  // namespace

std::string DescribeSize(size_t bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  if (bytes < kMiB) return fmt::format("{} bytes", bytes);
  if (bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / kMiB);
}

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned {
    return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
  };
  auto continuation = [&](size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  unsigned b0 = byte(0), b1 = byte(1);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
    return (b1 >= lo && b1 <= hi && continuation(2)) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    unsigned lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return (b1 >= lo && b1 <= hi && continuation(2) && continuation(3)) ? 4 : 0;
  }
  return 0;
}

// ------------------------------------------------------------------ the text

TextMap::TextMap(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {
  const std::string& text = file_->text();
  line_starts_.push_back(0);
  anchors_.push_back({0, 0});
  // Copies only from the first byte that ANTLR must see differently.
  auto copy_up_to = [&](size_t i) {
    if (!copied_) antlr_text_.assign(text, 0, i);
    copied_ = true;
  };
  for (size_t i = 0; i < text.size();) {
    size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      copy_up_to(i);
      antlr_text_ += "\xEF\xBF\xBD";
      n = 1;
    } else if (text.compare(i, n, "\xEF\xBB\xBF") == 0) {
      copy_up_to(i);
      antlr_text_ += ' ';  // a byte order mark; ANTLR's decoder would drop it and shift every index
    } else if (copied_) {
      antlr_text_.append(text, i, n);
    }
    if (text[i] == '\n') line_starts_.push_back(i + 1);
    i += n;
    ++code_points_;
    if (n > 1) anchors_.push_back({code_points_, i});
  }
}

size_t TextMap::Offset(size_t index) const {
  if (index >= code_points_) return text().size();
  auto after = std::upper_bound(anchors_.begin(), anchors_.end(), index,
                                [](size_t i, const Anchor& a) { return i < a.index; });
  const Anchor& anchor = *(after - 1);
  return anchor.offset + (index - anchor.index);
}

size_t TextMap::Index(size_t offset) const {
  auto after = std::upper_bound(anchors_.begin(), anchors_.end(), offset,
                                [](size_t o, const Anchor& a) { return o < a.offset; });
  const Anchor& anchor = *(after - 1);
  return anchor.index + (offset - anchor.offset);
}

// ------------------------------------------------------------ syntax errors

bool IsOpener(size_t type) {
  return type == TfgParser::LPAREN || type == TfgParser::LBRACK || type == TfgParser::LBRACE;
}
bool IsCloser(size_t type) {
  return type == TfgParser::RPAREN || type == TfgParser::RBRACK || type == TfgParser::RBRACE;
}
size_t CloserOf(size_t opener) {
  if (opener == TfgParser::LPAREN) return TfgParser::RPAREN;
  if (opener == TfgParser::LBRACK) return TfgParser::RBRACK;
  return TfgParser::RBRACE;
}

// For EOF: just after the last real token, where the missing text belongs.
SourceSpan SyntaxErrors::TokenSpan(size_t index) const {
  const Token* t = tokens_[index];
  if (t->getType() == TfgParser::NUMBER_LIST) {
    // Only its '[': what the parser stopped at, not a whole table of numbers.
    size_t begin = text_.Offset(t->getStartIndex());
    return text_.Span(begin, begin);
  }
  if (t->getType() != Token::EOF) return text_.TokenSpan(t);
  for (size_t i = index; i-- > 0;) {
    if (tokens_[i]->getType() == TfgParser::NEWLINE) continue;
    SourceSpan last = text_.TokenSpan(tokens_[i]);
    return SourceSpan{last.file, last.end_line, last.end_col + 1, last.end_line, last.end_col + 1};
  }
  return SourceSpan{text_.file(), 1, 1, 1, 1};
}

// How a token reads in a message: 'if', ')', name 'x', number 3, end of line.
std::string SyntaxErrors::Describe(const Token* t) const {
  std::string_view bytes = text_.Bytes(t);
  switch (t->getType()) {
    case Token::EOF: return "end of file";
    case TfgParser::NEWLINE: return "end of line";
    case TfgParser::NAME: return fmt::format("name '{}'", bytes);
    case TfgParser::INT:
    case TfgParser::FLOAT: return fmt::format("number {}", bytes);
    case TfgParser::NUMBER_LIST: return "'['";
    case TfgParser::FSTRING: return "an f-string";
    case TfgParser::STRING: {
      if (bytes.size() <= 24) return fmt::format("string {}", bytes);
      size_t cut = 20;
      while (cut > 0 && (static_cast<unsigned char>(bytes[cut]) & 0xC0u) == 0x80u) --cut;  // keep UTF-8 whole
      return fmt::format("string {}...", bytes.substr(0, cut));
    }
    case TfgParser::ERROR_CHAR:
      if (bytes.size() == 1 && bytes[0] > 0x20 && bytes[0] < 0x7F) return fmt::format("'{}'", bytes);
      return fmt::format("character U+{:04X}", static_cast<uint32_t>(DecodeUtf8(bytes)));
    default: return vocab_.getLiteralName(t->getType());
  }
}

std::string SyntaxErrors::DescribeExpected(size_t type) const {
  switch (type) {
    case Token::EOF: return "end of file";
    case TfgParser::NEWLINE: return "a newline";
    case TfgParser::NAME: return "a name";
    case TfgParser::STRING:
    case TfgParser::FSTRING: return "a string";
    case TfgParser::INT:
    case TfgParser::FLOAT: return "a number";
    case TfgParser::NUMBER_LIST: return "'['";
    default: return vocab_.getLiteralName(type);
  }
}

// "the block opened at line 3" / "the '(' opened at line 3".
std::string SyntaxErrors::OpenerPhrase(size_t opener) const {
  size_t type = tokens_[opener]->getType();
  bool block = type == TfgParser::LBRACE && OpensBlock(TypeBefore(opener));
  std::string what = block ? "the block" : "the " + vocab_.getLiteralName(type);
  return fmt::format("{} opened at line {}", what, LineOf(opener));
}

std::string SyntaxErrors::CloseMessage(size_t opener, size_t found) const {
  return fmt::format("expected {} to close {}, found {}",
                     vocab_.getLiteralName(CloserOf(tokens_[opener]->getType())), OpenerPhrase(opener),
                     Describe(tokens_[found]));
}

// The innermost bracket still open just before token `before`.
std::optional<size_t> SyntaxErrors::InnermostOpen(size_t before) const {
  std::vector<size_t> open;
  for (size_t i = 0; i < before && i < tokens_.size(); ++i) {
    size_t type = tokens_[i]->getType();
    if (IsOpener(type)) open.push_back(i);
    if (IsCloser(type) && !open.empty()) open.pop_back();
  }
  if (open.empty()) return std::nullopt;
  return open.back();
}

// Checks that brackets balance and nest at most kMaxBracketDepth deep, and
// returns the first problem found.
std::optional<BracketIssue> SyntaxErrors::CheckBrackets() const {
  std::vector<size_t> open;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    size_t type = tokens_[i]->getType();
    if (IsOpener(type)) {
      if (open.size() >= kMaxBracketDepth) {
        return BracketIssue{i, fmt::format("brackets nested too deeply (the limit is {} levels)", kMaxBracketDepth),
                            std::nullopt, true};
      }
      open.push_back(i);
    } else if (IsCloser(type)) {
      if (open.empty()) return BracketIssue{i, "unexpected " + Describe(tokens_[i]), {}};
      if (CloserOf(tokens_[open.back()]->getType()) != type) {
        return BracketIssue{i, CloseMessage(open.back(), i), open.back()};
      }
      open.pop_back();
    } else if (type == Token::EOF && !open.empty()) {
      return BracketIssue{i, CloseMessage(open.back(), i), open.back()};
    }
  }
  return std::nullopt;
}

Status SyntaxErrors::LexicalError(size_t index) const {
  const Token* t = tokens_[index];
  SourceSpan span = TokenSpan(index);
  if (t->getType() == TfgParser::UNTERMINATED_STRING) return SyntaxError("unterminated string", span);
  std::string_view bytes = text_.Bytes(t);
  if (!bytes.empty() && Utf8SequenceLength(bytes, 0) == 0) {
    return SyntaxError(fmt::format("invalid UTF-8 byte 0x{:02x}", static_cast<unsigned char>(bytes[0])), span);
  }
  return SyntaxError("unexpected " + Describe(t), span);
}

Status SyntaxErrors::BracketStatus(const BracketIssue& issue) const {
  Status status = SyntaxError(issue.message, TokenSpan(issue.token));
  if (issue.opener) status.AddNote(TokenSpan(*issue.opener), "opened here");
  return status;
}

// Picks the error the user should see first. A lexical error token is always
// what stopped the parser. A bracket problem wins when it comes first, and an
// unclosed ( or [ also explains any error on a later line (newlines were
// swallowed inside it).
Status SyntaxErrors::Report(const std::optional<ParseIssue>& parse,
                            const std::optional<BracketIssue>& brackets) const {
  if (parse) {
    size_t type = tokens_[parse->token]->getType();
    if (type == TfgParser::UNTERMINATED_STRING || type == TfgParser::ERROR_CHAR) return LexicalError(parse->token);
  }
  if (brackets) {
    bool first = !parse || brackets->token <= parse->token;
    bool swallowed = parse && brackets->opener && tokens_[*brackets->opener]->getType() != TfgParser::LBRACE &&
                     tokens_[brackets->token]->getType() == Token::EOF &&
                     LineOf(parse->token) > LineOf(*brackets->opener);
    if (first || swallowed) return BracketStatus(*brackets);
  }
  if (parse) return SyntaxError(ParseMessage(*parse), TokenSpan(parse->token));
  return Internal("syntax error without a cause");
}

// Messages derived from the set of tokens the parser could have accepted.
std::optional<std::string> SyntaxErrors::ExpectedSetMessage(const ParseIssue& issue, const std::string& found) const {
  std::vector<ssize_t> expected;
  // After a list's or dict's first item, 'for' would start a comprehension:
  // true, but "expected ',' or ']'" is what the writer of `[1 2]` needs.
  const bool in_literal = issue.rule == TfgParser::RuleListLit || issue.rule == TfgParser::RuleDictLit;
  for (ssize_t type : issue.expected.toList()) {
    if (type == TfgParser::NEWLINE || (in_literal && type == TfgParser::KW_FOR)) continue;
    expected.push_back(type);
  }
  auto has = [&](size_t type) {
    return std::find(expected.begin(), expected.end(), static_cast<ssize_t>(type)) != expected.end();
  };
  auto is_end = [](ssize_t type) {
    return type == static_cast<ssize_t>(Token::EOF) || type == static_cast<ssize_t>(TfgParser::RBRACE);
  };
  size_t previous = TypeBefore(issue.token);
  if (has(TfgParser::NAME) && has(TfgParser::INT)) return "expected an expression, found " + found;
  bool after_statement = previous != TfgParser::NEWLINE && previous != TfgParser::SEMI &&
                         previous != TfgParser::LBRACE && previous != Token::INVALID_TYPE;
  if (std::all_of(expected.begin(), expected.end(), is_end) && after_statement &&
      (issue.rule == TfgParser::RuleTopLevel || issue.rule == TfgParser::RuleBlock)) {
    return "expected a newline or ';' after the statement, found " + found;
  }
  if (expected.empty() || (expected.size() == 1 && has(Token::EOF))) return std::nullopt;
  std::optional<size_t> opener = InnermostOpen(issue.token);
  size_t closer = opener ? CloserOf(tokens_[*opener]->getType()) : Token::INVALID_TYPE;
  bool comma_or_close = expected.size() == 2 && has(closer) && has(TfgParser::COMMA);
  if (opener && (comma_or_close || (expected.size() == 1 && has(closer)))) {
    if (previous == tokens_[*opener]->getType()) return std::nullopt;  // nothing inside yet
    // Call arguments, parameters, subscripts, lists and dicts separate their
    // items with commas; grouping parentheses and blocks don't.
    bool list = comma_or_close || closer == TfgParser::RBRACK || issue.rule == TfgParser::RuleDictLit ||
                (closer == TfgParser::RPAREN && issue.rule != TfgParser::RuleAtom && issue.rule != TfgParser::RuleGroup);
    if (list) return fmt::format("expected ',' or {}, found {}", vocab_.getLiteralName(closer), found);
    return CloseMessage(*opener, issue.token);
  }
  if (expected.size() > 3) return std::nullopt;
  std::string names = DescribeExpected(expected[0]);
  for (size_t i = 1; i < expected.size(); ++i) {
    names += (i + 1 == expected.size() ? " or " : ", ") + DescribeExpected(expected[i]);
  }
  return fmt::format("expected {}, found {}", names, found);
}

namespace {

// Python written out of habit: how tfg spells it, for the error at `index`.
std::string PythonHint(const std::vector<Token*>& tokens, size_t index, bool inside_brackets) {
  const Token* at = tokens[index];
  const Token* before = index > 0 ? tokens[index - 1] : nullptr;
  if (before != nullptr && before->getType() == TfgParser::NAME) {
    if (before->getText() == "def") return "; functions are written 'fn name(args) { ... }'";
    if (before->getText() == "lambda") return "; a lambda is written 'fn(x) { x * 2 }'";
  }
  if (at->getType() == TfgParser::COLON && !inside_brackets) return "; blocks go in braces: 'if c { ... }'";
  if (at->getType() == TfgParser::KW_IF && before != nullptr && before->getType() != TfgParser::NEWLINE &&
      before->getType() != TfgParser::SEMI && before->getType() != TfgParser::LBRACE &&
      before->getType() != TfgParser::RBRACE) {
    return "; there is no 'a if c else b': use an if statement, or where(c, a, b) on tensors";
  }
  return "";
}

}  // namespace

std::string SyntaxErrors::ParseMessage(const ParseIssue& issue) const {
  std::string found = Describe(tokens_[issue.token]);
  std::string message = "unexpected " + found;
  if (issue.expected_known) {
    if (auto expected = ExpectedSetMessage(issue, found)) message = *expected;
  }
  return message + PythonHint(tokens_, issue.token, InnermostOpen(issue.token).has_value());
}

// --------------------------------------------------------------- depth limits

int MeasureDepth(const ast::Expr* e, int cap) {
  if (e == nullptr) return 0;
  if (cap <= 0) return 1;
  int deepest = 0;
  ForEachChild(*e, [&](const ast::Expr* child) { deepest = std::max(deepest, MeasureDepth(child, cap - 1)); });
  return deepest + 1;
}

Status CheckAstDepth(const ast::Block& program) { return DepthCheck().Block(program, 0); }

}  // namespace tfg::parse
