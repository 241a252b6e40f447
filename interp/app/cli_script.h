// Running a script from the command line: `tfg FILE`, `tfg check FILE` and
// `tfg graph FILE` (cli_script.cc). RunCli (cli.cc) dispatches here.
#pragma once

#include "interp/app/cli.h"
#include "interp/language/interpreter.h"

namespace tfg::cli {

// The parsed options plus what no flag sets: where the standard library
// is, and whether the command runs kernels.
InterpreterOptions MakeInterpreterOptions(const CliOptions& opts);

// run, check and graph: evaluate the script, then report per command;
// returns the process exit code.
int RunScriptCommand(const CliOptions& opts);

}  // namespace tfg::cli
