// `tfg` itself: RunCli parses the arguments (cli_args.cc), sets up what
// holds for the whole process (Ctrl-C, memory limit, network settings,
// output paths) and dispatches to the command. The script commands are in
// cli_script.cc, the help text in cli_usage.cc.
#include "interp/app/cli.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "interp/app/cli_outputs.h"
#include "interp/app/cli_script.h"
#include "interp/app/cli_usage.h"
#include "interp/app/op_docs.h"
#include "interp/app/repl.h"
#include "interp/distributed/worker.h"
#include "interp/interop/interop_cli.h"
#include "net/curve.h"
#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"

#ifndef TFG_VERSION
#define TFG_VERSION "0.0.0"
#endif

namespace tfg::cli {
namespace {

// Ctrl-C ends the process at once: kernels may be blocked in queues or
// waiting on peers, so unwinding is not an option. stdout is line-buffered
// (see RunCli), so nothing already printed is lost.
extern "C" void OnInterrupt(int) {
  static const char kMsg[] = "\ntfg: interrupted\n";
  ssize_t ignored = write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
  (void)ignored;
  _exit(kExitInterrupted);
}

void InstallInterruptHandler() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// --curve-keys and --compress-transfers hold for every socket of the
// process, so they are read before anything connects.
Status ApplyNetSettings(const CliOptions& opts) {
  net::NetSettings settings;
  settings.compress_transfers = opts.compress_transfers;
  if (!opts.curve_keys.empty() && opts.command != Command::kKeygen) {
    TFG_ASSIGN_OR_RETURN(settings.keys, net::LoadCurveKeys(opts.curve_keys));
    settings.curve = true;
  }
  net::SetNetSettings(std::move(settings));
  return Status::OK();
}

}  // namespace

int RunCli(int argc, char** argv) {
  // Line-buffered stdout keeps print() output in order with errors and
  // progress lines when piped, and lets Ctrl-C exit without losing it.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  InstallInterruptHandler();
  if (interop::IsInteropCommand(argc, argv)) return interop::RunInteropCommand(argc, argv);
  auto parsed = ParseArgs(std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
  if (!parsed.ok()) {
    std::cerr << "tfg: " << parsed.status().message() << "\n";
    if (parsed.status().code() != Code::kInvalidArgument) return kExitScriptError;
    std::cerr << kSynopsis << "run 'tfg --help' for the options\n";
    return kExitUsage;
  }
  const CliOptions& opts = *parsed;
  SetMemoryLimit(opts.memory_limit);
  if (Status ready = ApplyNetSettings(opts); !ready.ok()) {
    std::cerr << "tfg: " << ready.message() << "\n";
    return kExitUsage;
  }
  if (Status ready = PrepareOutputs(opts); !ready.ok()) {
    std::cerr << "tfg: " << ready.message() << "\n";
    return kExitUsage;
  }
  switch (opts.command) {
    case Command::kHelp: std::cout << Usage(); return kExitOk;
    case Command::kVersion: std::cout << "tfg " << TFG_VERSION << "\n"; return kExitOk;
    case Command::kDocOps: std::cout << OpReferenceMarkdown(OpRegistry::Global()); return kExitOk;
    case Command::kRepl: {
      bool reported = true;
      const int code =
          RunRepl(MakeInterpreterOptions(opts), [&](const Interpreter& interp) { reported = WriteReports(opts, interp); });
      return code == kExitOk && !reported ? kExitScriptError : code;
    }
    case Command::kWorker: {
      WorkerOptions w;
      w.listen = opts.listen;
      w.threads = opts.interpreter.session.inter_op_threads;
      w.master_timeout_seconds = opts.master_timeout;
      w.data_dir = opts.data_dir;
      w.stats = opts.interpreter.session.collect_stats;
      return RunWorker(w);
    }
    case Command::kKeygen: {
      auto written = net::GenerateCurveKeys(opts.file);
      if (!written.ok()) {
        std::cerr << "tfg: " << written.status().message() << "\n";
        return kExitScriptError;
      }
      std::cout << *written;
      return kExitOk;
    }
    case Command::kRun:
    case Command::kCheck:
    case Command::kGraph: return RunScriptCommand(opts);
  }
  return kExitUsage;
}

}  // namespace tfg::cli
