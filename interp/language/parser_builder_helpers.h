// What the AST builder's rule files (parser.cc, parser_expressions.cc,
// parser_literals.cc) share: making an expression node, and the binary
// operator a token stands for, in a binary expression or an augmented
// assignment alike. Front end only (it includes ANTLR headers).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>

#include "interp/language/parser_ast_builder.h"

namespace tfg::parse {

template <typename T, typename... Args>
ast::ExprPtr MakeExpr(Args&&... args) {
  return std::make_unique<T>(std::forward<Args>(args)...);
}

// The operator of a TfgParser token type: `+` and `+=` are both kAdd; null
// for a token that is no binary operator.
std::optional<ast::BinaryOp> BinaryOpOf(size_t token_type);

}  // namespace tfg::parse
