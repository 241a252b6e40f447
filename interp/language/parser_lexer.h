// The lexer the front end runs: ANTLR's generated TfgLexer, except that a
// list literal of nothing but numbers comes out as one NUMBER_LIST token
// (see interp/language/parser_number_list.h), not as a token per number,
// comma and bracket.
#pragma once

#include <memory>

#include "TfgLexer.h"
#include "interp/language/parser_support.h"

namespace tfg::parse {

// Thrown out of nextToken() past the token limit; the front end turns it
// into an error at the token that crossed it.
struct TokenLimitReached {
  size_t start = 0;  // code point index of that token
};

class NumberListLexer : public gen::TfgLexer {
 public:
  NumberListLexer(antlr4::CharStream* input, const TextMap& text, size_t max_tokens)
      : TfgLexer(input), text_(text), max_tokens_(max_tokens) {}

  std::unique_ptr<Token> nextToken() override;

  // Where the lexer is, for an error that stops it (out of memory).
  size_t last_token_start() const { return last_token_start_; }

 private:
  std::unique_ptr<Token> NumberListAt(const Token& open_bracket);

  const TextMap& text_;
  size_t previous_type_ = Token::INVALID_TYPE;
  size_t last_token_start_ = 0;  // code point index
  size_t max_tokens_;
  size_t tokens_ = 0;
};

}  // namespace tfg::parse
