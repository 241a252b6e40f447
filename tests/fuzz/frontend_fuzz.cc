// libFuzzer entry for the front end: any bytes must give an AST or a syntax
// error with a span, never a crash, hang or abort.
//   clang++ -std=c++20 -fsanitize=fuzzer,address ... && ./frontend_fuzz corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "interp/language/parser.h"

namespace {

// A syntax error (or running out of memory) must point into the file;
// anything else is a parser bug.
void Check(const tfg::Result<std::shared_ptr<tfg::ast::Program>>& program) {
  tfg::Code code = program.ok() ? tfg::Code::kOk : program.status().code();
  if (!program.ok() && ((code != tfg::Code::kInvalidArgument && code != tfg::Code::kResourceExhausted) ||
                        !program.status().span().valid())) {
    std::abort();
  }
}

// Limits small enough for fuzzed inputs to cross: the parse stopped at a
// token limit (mid-lexing, or mid-statement with a partial parse tree)
// must clean up as well as a finished one.
tfg::ParseLimits TightLimits(size_t size) {
  tfg::ParseLimits limits;
  limits.max_tokens = 16 + size % 64;
  limits.max_statement_tokens = 4 + size % 16;
  limits.max_literal_bytes = 8 + size % 32;
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto file = std::make_shared<tfg::SourceFile>("fuzz.tfg", text);
  Check(tfg::ParseProgram(file));
  Check(tfg::ParseProgram(file, TightLimits(size)));
  (void)tfg::NeedsMoreInput(text);
  return 0;
}
