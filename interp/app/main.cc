// tfg: the command-line entry point. Everything lives in interp/app/cli.cc.
#include <cstdio>
#include <new>

#include "interp/app/cli.h"
#include "interp/runtime/interrupt.h"

// A script stopped by Ctrl-C (see interp/runtime/interrupt.h) exits with 130, the
// shell's code for SIGINT, whatever error the interruption surfaced as.
// Memory running out in a kernel or a reader is an error at the node's line
// (--memory-limit); anywhere else on this thread it still ends with a
// message and exit code 1, not an abort.
int main(int argc, char** argv) {
  try {
    const int code = tfg::cli::RunCli(argc, argv);
    return code != 0 && tfg::interrupt::EverRequested() ? 130 : code;
  } catch (const std::bad_alloc&) {
    std::fputs("tfg: out of memory (see --memory-limit)\n", stderr);
    return tfg::cli::kExitScriptError;
  }
}
