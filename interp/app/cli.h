// The `tfg` command line: argument parsing and dispatch to the script
// runner, the REPL, `check`, `graph` and the op reference generator.
// main() only calls RunCli; everything here is testable without a process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/status.h"

namespace tfg::cli {

// Process exit codes (docs/cli.md lists them for users).
inline constexpr int kExitOk = 0;
inline constexpr int kExitScriptError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

enum class Command {
  kRepl,     // tfg
  kRun,      // tfg FILE [args...]
  kCheck,    // tfg check FILE
  kGraph,    // tfg graph FILE [--dot] [--optimized]
  kDocOps,   // tfg doc ops (hidden; scripts/gen-docs writes docs/ops.md with it)
  kHelp,     // tfg --help
  kVersion,  // tfg --version
  kWorker,   // tfg --worker --listen ADDR
  kKeygen,   // tfg keygen DIR
};

struct CliOptions {
  Command command = Command::kRepl;
  std::string file;                      // the script; "-" reads it from stdin
  std::vector<std::string> script_args;  // visible to the script as `argv`
  int threads = 0;                       // --threads N; 0: one per core
  uint64_t seed = 0;                     // --seed S; 0: nondeterministic
  bool quiet = false;                    // --quiet
  bool check_numerics = false;           // --check-numerics
  double hang_timeout = 10;              // --hang-timeout S
  bool stats = false;                    // --stats
  std::string trace_path;                // --trace FILE; empty: none
  std::string logdir;                    // --logdir DIR (logdir() in scripts); empty: none
  bool optimized = false;                // graph --optimized
  bool placed = false;                   // graph --placed
  int local_cpu_devices = 1;             // --local-devices cpu=N
  std::string device_type;               // --device TYPE; empty: any
  bool worker = false;                   // --worker
  std::string listen;                    // --listen ADDR (with --worker)
  std::string cluster;                   // --cluster JOB=ADDR;ADDR,...
  double heartbeat = 1;                  // --heartbeat S
  double master_timeout = 10;            // --master-timeout S (worker)
  std::string curve_keys;                // --curve-keys DIR; empty: no CURVE security
  std::string data_dir;                  // --data-dir DIR (worker)
  bool compress_transfers = false;       // --compress-transfers (master)
  double recovery_timeout = 60;          // --recovery-timeout S
  std::string master_listen;             // --master-listen ADDR
  bool log_placement = false;            // --log-placement
};

// Parses the arguments after argv[0]. A usage error comes back as
// InvalidArgument whose message is meant to be printed after "tfg: ".
Result<CliOptions> ParseArgs(const std::vector<std::string>& args);

// The text of `tfg --help`.
std::string Usage();

// The whole program: parses `argv`, runs the command, prints errors, and
// returns the process exit code.
int RunCli(int argc, char** argv);

}  // namespace tfg::cli
