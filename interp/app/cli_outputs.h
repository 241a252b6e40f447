// The files a command writes besides its own output (--logdir, --trace)
// and the reports printed at exit (--stats): checked before anything runs,
// so a long run does not find out at its end that it cannot write them.
#pragma once

#include "interp/app/cli.h"
#include "interp/language/interpreter.h"
#include "ops/core/status.h"

namespace tfg::cli {

// Output paths given on the command line, checked before anything runs.
Status PrepareOutputs(const CliOptions& opts);

// --stats and --trace, once the script or REPL session is over; false when
// the trace could not be written.
bool WriteReports(const CliOptions& opts, const Interpreter& interp);

}  // namespace tfg::cli
