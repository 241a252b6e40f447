// Front end: .tfg text -> AST. The ANTLR-generated parser stays behind this
// interface; nothing else in tfg includes ANTLR headers.
#pragma once

#include <cstddef>
#include <memory>

#include "interp/language/ast.h"
#include "ops/core/status.h"

namespace tfg {

// How big a script, and one literal in it, may be (docs/language.md, "Size
// limits"). Past them parsing stops with an error at the place the limit is
// crossed, well before memory runs out.
struct ParseLimits {
  size_t max_script_bytes = size_t{256} << 20;
  size_t max_literal_bytes = size_t{64} << 20;  // one list, dict or string literal
  // Tokens (a list of nothing but numbers is one token): each takes memory
  // while the script is parsed, a statement's several hundred bytes each.
  size_t max_tokens = size_t{8} << 20;            // in the whole script
  size_t max_statement_tokens = size_t{1} << 19;  // in one top-level statement
};

// Parses a whole file. The first syntax error is returned with its span
// and a message naming what was expected and what was found, e.g.
//   "expected '}' to close the block opened at line 3, found end of file".
// Running out of memory is an error too, at the statement being parsed.
Result<std::shared_ptr<ast::Program>> ParseProgram(std::shared_ptr<const SourceFile> file,
                                                   const ParseLimits& limits = {});

// For the REPL: true when `text` ends inside an open block, bracket or string
// (so the REPL should read another line before parsing).
bool NeedsMoreInput(const std::string& text);

}  // namespace tfg
