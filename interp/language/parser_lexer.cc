// NumberListLexer: number lists as one token each; see parser_lexer.h.
#include "interp/language/parser_lexer.h"

#include "interp/language/parser_number_list.h"

namespace tfg::parse {
namespace {

// Whether a '[' after a token of type `previous` opens a list literal. After
// anything that ends an operand it indexes (x[1], f()[0], [1][0]); after an
// erroneous token it is left to the ordinary parse, whose message says why.
bool OpensListLiteral(size_t previous) {
  switch (previous) {
    case TfgParser::INT: case TfgParser::FLOAT: case TfgParser::STRING: case TfgParser::NAME:
    case TfgParser::KW_TRUE: case TfgParser::KW_FALSE: case TfgParser::KW_NONE: case TfgParser::QUESTION:
    case TfgParser::PY_TRUE: case TfgParser::PY_FALSE: case TfgParser::PY_NONE: case TfgParser::FSTRING:
    case TfgParser::RPAREN: case TfgParser::RBRACK: case TfgParser::RBRACE: case TfgParser::NUMBER_LIST:
    case TfgParser::UNTERMINATED_STRING: case TfgParser::ERROR_CHAR:
      return false;
    default:
      return true;
  }
}

}  // namespace

std::unique_ptr<Token> NumberListLexer::nextToken() {
  std::unique_ptr<Token> token = TfgLexer::nextToken();
  last_token_start_ = token->getStartIndex();
  if (token->getType() == LBRACK && OpensListLiteral(previous_type_)) {
    if (std::unique_ptr<Token> list = NumberListAt(*token)) token = std::move(list);
  }
  previous_type_ = token->getType();
  if (++tokens_ > max_tokens_ && previous_type_ != Token::EOF) throw TokenLimitReached{last_token_start_};
  return token;
}

// The NUMBER_LIST token of the list that `open_bracket` opens, or null when
// that is not a number list. The lexer then goes on after its ']'.
std::unique_ptr<Token> NumberListLexer::NumberListAt(const Token& open_bracket) {
  // open_brackets already holds this '['; the bracket check counts what the
  // list nests inside it.
  size_t enclosing = open_brackets.size() - 1;
  if (enclosing >= kMaxBracketDepth) return nullptr;
  size_t begin = text_.Offset(open_bracket.getStartIndex());
  std::optional<size_t> end =
      WalkNumberList(text_.text(), begin, kMaxBracketDepth - enclosing, [](const NumberListPiece&) {});
  if (!end) return nullptr;
  size_t stop = text_.Index(*end);  // code point index just past the ']'
  _input->seek(stop);
  CloseBracket();
  // ANTLR's own line and column of later tokens go stale here; nothing reads
  // them (spans come from TextMap).
  auto list = std::make_unique<antlr4::CommonToken>(std::make_pair(this, _input), TfgParser::NUMBER_LIST,
                                                    Token::DEFAULT_CHANNEL, open_bracket.getStartIndex(), stop - 1);
  list->setText("[...]");  // so that no getText() ever copies a whole table
  list->setLine(open_bracket.getLine());
  list->setCharPositionInLine(open_bracket.getCharPositionInLine());
  return list;
}

}  // namespace tfg::parse
