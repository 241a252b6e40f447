// libFuzzer entry for building and shape-checking: any script runs in
// check-only mode (graphs are built and shape-checked, run() runs no
// kernels) within a statement and host-tensor budget, and must end in
// success or an error value, never a crash, hang or abort. Ops run at once
// on host values do run their kernels, so the CPU kernels are exercised too.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "interp/language/interpreter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::ostringstream sink;
  tfg::InterpreterOptions options;
  options.check_only = true;
  options.session.inter_op_threads = options.session.intra_op_threads = 1;
  options.quiet = true;
  options.max_statements = 5000;
  options.session.max_eager_elements = 1 << 20;
  options.out = &sink;
  options.err = &sink;
  tfg::Interpreter interp(options);
  (void)interp.RunSource("fuzz.tfg", std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}

// Huge allocations a script asks for must come back as errors, not abort.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:detect_leaks=0"; }
