// Front end: .tfg text -> AST. The ANTLR-generated parser stays behind this
// interface; nothing else in tfg includes ANTLR headers.
#pragma once

#include <memory>

#include "interp/language/ast.h"
#include "ops/core/status.h"

namespace tfg {

// Parses a whole file. The first syntax error is returned with its span
// and a message naming what was expected and what was found, e.g.
//   "expected '}' to close the block opened at line 3, found end of file".
Result<std::shared_ptr<ast::Program>> ParseProgram(std::shared_ptr<const SourceFile> file);

// For the REPL: true when `text` ends inside an open block, bracket or string
// (so the REPL should read another line before parsing).
bool NeedsMoreInput(const std::string& text);

}  // namespace tfg
