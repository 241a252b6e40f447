// The `tfg` command line: argument parsing and dispatch to the script
// runner, the REPL, `check`, `graph` and the op reference generator.
// main() only calls RunCli; everything here is testable without a process.
#pragma once

#include <string>
#include <vector>

#include "interp/language/interpreter.h"
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

// The options the interpreter takes are parsed straight into `interpreter`
// (interp/language/interpreter.h); the rest are the CLI's own.
struct CliOptions {
  Command command = Command::kRepl;
  std::string file;                 // the script; "-" reads it from stdin
  InterpreterOptions interpreter;   // its argv: the script arguments
  std::string trace_path;           // --trace FILE; empty: none
  bool optimized = false;           // graph --optimized
  bool placed = false;              // graph --placed
  int depth = -1;                   // graph --depth N: scopes below N collapsed; -1: none
  bool worker = false;              // --worker
  std::string listen;               // --listen ADDR (with --worker)
  double master_timeout = 10;       // --master-timeout S (worker)
  std::string curve_keys;           // --curve-keys DIR; empty: no CURVE security
  std::string data_dir;             // --data-dir DIR (worker)
  bool compress_transfers = false;  // --compress-transfers (master)
  int64_t memory_limit = 0;         // --memory-limit BYTES; 0: the machine's (ops/core/memory_budget.h)
};

// The largest script `tfg FILE` reads (docs/cli.md): a bigger file is
// refused rather than read into memory whole.
inline constexpr uint64_t kMaxScriptBytes = uint64_t{64} << 20;

// Parses the arguments after argv[0]. A usage error comes back as
// InvalidArgument whose message is meant to be printed after "tfg: ".
Result<CliOptions> ParseArgs(const std::vector<std::string>& args);

// The text of `tfg --help`.
std::string Usage();

// The whole program: parses `argv`, runs the command, prints errors, and
// returns the process exit code.
int RunCli(int argc, char** argv);

}  // namespace tfg::cli
