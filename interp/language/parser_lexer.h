// The lexer the front end runs: ANTLR's generated TfgLexer, except that a
// list literal of nothing but numbers comes out as one NUMBER_LIST token
// (see interp/language/parser_number_list.h), not as a token per number,
// comma and bracket.
#pragma once

#include <memory>

#include "TfgLexer.h"
#include "interp/language/parser_support.h"

namespace tfg::parse {

class NumberListLexer : public gen::TfgLexer {
 public:
  NumberListLexer(antlr4::CharStream* input, const TextMap& text) : TfgLexer(input), text_(text) {}

  std::unique_ptr<Token> nextToken() override;

  // Where the lexer is, for an error that stops it (out of memory).
  size_t last_token_start() const { return last_token_start_; }

 private:
  std::unique_ptr<Token> NumberListAt(const Token& open_bracket);

  const TextMap& text_;
  size_t previous_type_ = Token::INVALID_TYPE;
  size_t last_token_start_ = 0;  // code point index
};

}  // namespace tfg::parse
