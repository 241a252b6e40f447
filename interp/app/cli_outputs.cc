// The command line's output files and exit reports (cli_outputs.h): the
// checks of --logdir and --trace before a run, the --stats and --trace
// reports after it.
#include "interp/app/cli_outputs.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "net/transport.h"
#include "ops/core/safe_file.h"

namespace tfg::cli {
namespace {

// --logdir: created and checked before the script runs, so a training run
// does not find out at its first summary that it cannot write.
Status PrepareLogdir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(Code::kFailedPrecondition, "--logdir: cannot create '{}': {}", dir, ec.message());
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error(Code::kFailedPrecondition, "--logdir: cannot write to '{}': {}", dir, std::strerror(errno));
  }
  return Status::OK();
}

// --trace: the file is written at exit, but an unwritable path is found
// out now, before the run it would have recorded.
Status CheckTracePath(const std::string& path) {
  Result<std::string> target = WritablePath(path);
  if (!target.ok()) return Error(Code::kFailedPrecondition, "--trace: {}", target.status().message());
  // The trace is written as a new file renamed into place: what counts is
  // whether its directory takes new files.
  std::string dir = std::filesystem::path(*target).parent_path().string();
  if (dir.empty()) dir = ".";
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return Error(Code::kFailedPrecondition, "--trace: cannot write '{}': {}", path, std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace

// Output paths given on the command line, checked before anything runs.
Status PrepareOutputs(const CliOptions& opts) {
  const bool writes = opts.command == Command::kRun || opts.command == Command::kRepl;
  if (!writes) return Status::OK();
  if (!opts.interpreter.logdir.empty()) TFG_RETURN_IF_ERROR(PrepareLogdir(opts.interpreter.logdir));
  if (!opts.trace_path.empty()) TFG_RETURN_IF_ERROR(CheckTracePath(opts.trace_path));
  return Status::OK();
}

// --stats and --trace, once the script or REPL session is over; false when
// the trace could not be written.
bool WriteReports(const CliOptions& opts, const Interpreter& interp) {
  if (opts.interpreter.session.collect_stats) {
    std::cout.flush();
    std::cerr << interp.StatsReport() << net::NetworkTrafficReport() << std::flush;
  }
  if (opts.trace_path.empty()) return true;
  Status written = interp.WriteTrace(opts.trace_path);
  if (!written.ok()) std::cerr << "tfg: " << written.message() << "\n";
  return written.ok();
}

}  // namespace tfg::cli
