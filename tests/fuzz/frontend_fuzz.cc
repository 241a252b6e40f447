// libFuzzer entry for the front end: any bytes must give an AST or a syntax
// error with a span, never a crash, hang or abort.
//   clang++ -std=c++20 -fsanitize=fuzzer,address ... && ./frontend_fuzz corpus/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "interp/language/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto file = std::make_shared<tfg::SourceFile>("fuzz.tfg", text);
  auto program = tfg::ParseProgram(file);
  // A syntax error (or running out of memory) must point into the file;
  // anything else is a parser bug.
  tfg::Code code = program.ok() ? tfg::Code::kOk : program.status().code();
  if (!program.ok() && ((code != tfg::Code::kInvalidArgument && code != tfg::Code::kResourceExhausted) ||
                        !program.status().span().valid())) {
    std::abort();
  }
  (void)tfg::NeedsMoreInput(text);
  return 0;
}
