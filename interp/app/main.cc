// tfg: the command-line entry point. Everything lives in interp/app/cli.cc.
#include "interp/app/cli.h"
#include "interp/runtime/interrupt.h"

// A script stopped by Ctrl-C (see interp/runtime/interrupt.h) exits with 130, the
// shell's code for SIGINT, whatever error the interruption surfaced as.
int main(int argc, char** argv) {
  const int code = tfg::cli::RunCli(argc, argv);
  return code != 0 && tfg::interrupt::EverRequested() ? 130 : code;
}
