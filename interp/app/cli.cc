#include "interp/app/cli.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "devices/cpu/cpu_device.h"
#include "interp/runtime/graph_optimizer.h"
#include "interp/language/interpreter.h"
#include "interp/app/graph_dot.h"
#include "interp/app/op_docs.h"
#include "interp/app/repl.h"
#include "interp/app/tf_config.h"
#include "interp/interop/interop_cli.h"
#include "interp/distributed/cluster.h"
#include "interp/distributed/worker.h"
#include "net/curve.h"
#include "net/transport.h"
#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"
#include "ops/core/safe_file.h"

#ifndef TFG_VERSION
#define TFG_VERSION "0.0.0"
#endif

namespace tfg::cli {
namespace {

// ------------------------------------------------------------ argument parsing

// Walks the argument list; options may come before the subcommand, between
// it and FILE, and (for check/graph, which take no script args) after FILE.
class ArgParser {
 public:
  explicit ArgParser(const std::vector<std::string>& args) : args_(args) {}
  Result<CliOptions> Parse();

 private:
  Status ParseOption(const std::string& arg);
  Result<std::string> OptionValue(const std::string& arg, const std::string& name);
  // `literal`: after "--", so never a subcommand.
  Status TakeOperand(const std::string& arg, bool literal = false);
  bool AfterFileTakesOptions() const {
    return opts_.command == Command::kCheck || opts_.command == Command::kGraph;
  }

  const std::vector<std::string>& args_;
  size_t pos_ = 0;
  CliOptions opts_;
  bool have_file_ = false;
  bool doc_topic_pending_ = false;
  bool help_ = false;
  bool version_ = false;
};

Status UsageError(const std::string& message) { return Status(Code::kInvalidArgument, message); }

// `tfg --trace train.tfg` (the trace's file name forgotten) would read the
// script as the option's value, start the REPL, and overwrite the script
// with the trace at exit: an output option never names an existing script.
Status RefuseScriptAsOutput(const std::string& option, const std::string& path) {
  std::error_code ec;
  if (path.ends_with(".tfg") && std::filesystem::exists(path, ec)) {
    return UsageError(option + " " + path + " names an existing script, which it would overwrite; give " + option +
                      " a file of its own (e.g. " + option + (option == "--trace" ? " trace.json" : " logs") + ")");
  }
  return Status::OK();
}

// Non-negative integer; the whole string must be digits.
template <typename T>
std::optional<T> ParseNumber(const std::string& s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || s[0] == '-') return std::nullopt;
  return value;
}

Result<std::string> ArgParser::OptionValue(const std::string& arg, const std::string& name) {
  if (arg.size() > name.size() && arg[name.size()] == '=') return arg.substr(name.size() + 1);
  if (pos_ >= args_.size()) return UsageError("option " + name + " needs a value");
  return args_[pos_++];
}

Status ArgParser::ParseOption(const std::string& arg) {
  auto is = [&](const char* name) {
    size_t n = std::strlen(name);
    return arg == name || (arg.size() > n && arg.compare(0, n, name) == 0 && arg[n] == '=');
  };
  InterpreterOptions& interp = opts_.interpreter;
  SessionOptions& session = interp.session;
  if (arg == "--help" || arg == "-h") {
    help_ = true;
  } else if (arg == "--version" || arg == "-V") {
    version_ = true;
  } else if (arg == "--quiet" || arg == "-q") {
    interp.quiet = true;
  } else if (arg == "--check-numerics") {
    session.check_numerics = true;
  } else if (arg == "--log-placement") {
    interp.log_placement = true;
  } else if (arg == "--stats") {
    session.collect_stats = true;
  } else if (arg == "--dot" && opts_.command == Command::kGraph) {
    // Graphviz dot is the only graph format; the flag is accepted for clarity.
  } else if (arg == "--optimized" && opts_.command == Command::kGraph) {
    opts_.optimized = true;
  } else if (arg == "--placed" && opts_.command == Command::kGraph) {
    opts_.placed = true;
  } else if (is("--depth") && opts_.command == Command::kGraph) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--depth"));
    auto n = ParseNumber<int>(v);
    if (!n || *n < 0) return UsageError("--depth expects a number of scope levels (0 or more), found '" + v + "'");
    opts_.depth = *n;
  } else if (is("--local-devices")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--local-devices"));
    auto n = v.rfind("cpu=", 0) == 0 ? ParseNumber<int>(v.substr(4)) : std::nullopt;
    if (!n || *n < 1 || *n > 64) {
      return UsageError("--local-devices expects cpu=N with N from 1 to 64, found '" + v + "'");
    }
    session.local_cpu_devices = *n;
  } else if (is("--device")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--device"));
    if (v != "cpu" && v != "gpu") return UsageError("--device expects cpu or gpu, found '" + v + "'");
    session.default_device_type = v;
  } else if (is("--threads")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--threads"));
    auto n = ParseNumber<int>(v);
    if (!n || *n < 1 || *n > 4096) return UsageError("--threads expects a whole number from 1 to 4096, found '" + v + "'");
    session.inter_op_threads = session.intra_op_threads = *n;
  } else if (is("--seed")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--seed"));
    auto n = ParseNumber<uint64_t>(v);
    if (!n) return UsageError("--seed expects a non-negative whole number, found '" + v + "'");
    session.seed = *n;
  } else if (is("--hang-timeout")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--hang-timeout"));
    char* end = nullptr;
    double s = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(s >= 0) || s > 1e6) {
      return UsageError("--hang-timeout expects seconds (0 = never), found '" + v + "'");
    }
    session.hang_timeout_seconds = s;
  } else if (is("--trace")) {
    TFG_ASSIGN_OR_RETURN(opts_.trace_path, OptionValue(arg, "--trace"));
    if (opts_.trace_path.empty()) return UsageError("--trace expects a file name");
    TFG_RETURN_IF_ERROR(RefuseScriptAsOutput("--trace", opts_.trace_path));
    session.trace = true;
  } else if (is("--logdir")) {
    TFG_ASSIGN_OR_RETURN(interp.logdir, OptionValue(arg, "--logdir"));
    if (interp.logdir.empty()) return UsageError("--logdir expects a directory name");
    TFG_RETURN_IF_ERROR(RefuseScriptAsOutput("--logdir", interp.logdir));
  } else if (is("--worker")) {
    opts_.worker = true;
  } else if (is("--listen")) {
    TFG_ASSIGN_OR_RETURN(opts_.listen, OptionValue(arg, "--listen"));
    if (opts_.listen.empty()) return UsageError("--listen expects an address, e.g. tcp://127.0.0.1:7001");
    if (auto a = net::NormalizeAddress(opts_.listen); !a.ok()) return UsageError(a.status().message());
  } else if (is("--curve-keys") || is("--data-dir")) {
    const std::string name = arg.substr(0, arg.find('='));
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, name));
    if (v.empty()) return UsageError(name + " expects a directory");
    (name == "--curve-keys" ? opts_.curve_keys : opts_.data_dir) = v;
  } else if (is("--memory-limit")) {
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, "--memory-limit"));
    auto bytes = ParseByteSize(v);
    if (!bytes.ok()) return UsageError("--memory-limit: " + bytes.status().message());
    opts_.memory_limit = *bytes;
  } else if (arg == "--compress-transfers") {
    opts_.compress_transfers = true;
  } else if (is("--master-listen")) {
    TFG_ASSIGN_OR_RETURN(interp.master_listen, OptionValue(arg, "--master-listen"));
    if (auto a = net::NormalizeAddress(interp.master_listen); !a.ok()) return UsageError(a.status().message());
  } else if (is("--cluster")) {
    TFG_ASSIGN_OR_RETURN(interp.cluster, OptionValue(arg, "--cluster"));
    if (auto spec = ParseClusterFlag(interp.cluster); !spec.ok()) return UsageError(spec.status().message());
  } else if (is("--heartbeat") || is("--master-timeout") || is("--recovery-timeout")) {
    const std::string name = arg.substr(0, arg.find('='));
    TFG_ASSIGN_OR_RETURN(std::string v, OptionValue(arg, name));
    char* end = nullptr;
    double s = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(s >= 0.01) || s > 3600) {
      return UsageError(name + " expects seconds from 0.01 to 3600, found '" + v + "'");
    }
    if (name == "--recovery-timeout") {
      interp.recovery_timeout = s;
    } else {
      (name == "--heartbeat" ? interp.heartbeat : opts_.master_timeout) = s;
    }
  } else {
    return UsageError("unknown option '" + arg + "'");
  }
  return Status::OK();
}

// A word that is not an option: a subcommand, the doc topic or FILE.
Status ArgParser::TakeOperand(const std::string& arg, bool literal) {
  if (doc_topic_pending_) {
    if (arg != "ops") return UsageError("unknown doc topic '" + arg + "' (known: ops)");
    doc_topic_pending_ = false;
    have_file_ = true;  // nothing else may follow
    return Status::OK();
  }
  if (have_file_) {
    if (opts_.command == Command::kDocOps) return UsageError("unexpected argument '" + arg + "'");
    return UsageError("unexpected argument '" + arg + "' after " + opts_.file + " (script arguments go after '--')");
  }
  if (opts_.command == Command::kRepl) {
    // The first word picks the command; `tfg ./check` runs a file named check.
    if (!literal && arg == "keygen") {
      opts_.command = Command::kKeygen;
      return Status::OK();
    }
    if (!literal && (arg == "check" || arg == "graph" || arg == "doc")) {
      opts_.command = arg == "check" ? Command::kCheck : arg == "graph" ? Command::kGraph : Command::kDocOps;
      doc_topic_pending_ = opts_.command == Command::kDocOps;
      return Status::OK();
    }
    opts_.command = Command::kRun;
  }
  opts_.file = arg;
  have_file_ = true;
  return Status::OK();
}

Result<CliOptions> ArgParser::Parse() {
  while (pos_ < args_.size()) {
    const std::string& arg = args_[pos_++];
    bool options_allowed = !have_file_ || AfterFileTakesOptions();
    if (arg == "--" && options_allowed) {
      // FILE comes next unless we have it; the rest are script arguments.
      if (!have_file_ && pos_ < args_.size()) TFG_RETURN_IF_ERROR(TakeOperand(args_[pos_++], true));
      opts_.interpreter.argv.assign(args_.begin() + pos_, args_.end());
      break;
    }
    if (arg.size() > 1 && arg[0] == '-' && options_allowed) {
      TFG_RETURN_IF_ERROR(ParseOption(arg));
    } else if (have_file_ && opts_.command == Command::kRun) {
      opts_.interpreter.argv.assign(args_.begin() + pos_ - 1, args_.end());
      break;
    } else {
      TFG_RETURN_IF_ERROR(TakeOperand(arg));
    }
  }
  // Kubernetes' TF_CONFIG fills what the flags left out (tf_config.h).
  if (!help_ && !version_) TFG_RETURN_IF_ERROR(ApplyTfConfig(std::getenv("TF_CONFIG"), opts_));
  if (help_) opts_.command = Command::kHelp;
  else if (version_) opts_.command = Command::kVersion;
  else if (opts_.worker) {
    if (opts_.command != Command::kRepl) return UsageError("--worker runs no script: drop '" + opts_.file + "'");
    if (opts_.listen.empty()) return UsageError("--worker needs --listen ADDR, e.g. --listen tcp://127.0.0.1:7001");
    if (!opts_.interpreter.cluster.empty()) {
      return UsageError("--cluster is for the master (the script), not a --worker");
    }
    if (opts_.compress_transfers) {
      return UsageError("--compress-transfers is the master's choice (it tells the workers): drop it here");
    }
    if (!opts_.interpreter.master_listen.empty()) {
      return UsageError("--master-listen is for the master; a --worker has --listen");
    }
    opts_.command = Command::kWorker;
  } else if (!opts_.listen.empty()) return UsageError("--listen goes with --worker");
  else if (!opts_.data_dir.empty()) return UsageError("--data-dir goes with --worker");
  else if (opts_.command == Command::kKeygen && !have_file_) return UsageError("keygen needs a DIR");
  else if (doc_topic_pending_) return UsageError("'doc' needs a topic (known: ops)");
  else if ((opts_.command == Command::kCheck || opts_.command == Command::kGraph) && !have_file_)
    return UsageError(std::string(opts_.command == Command::kCheck ? "check" : "graph") + " needs a FILE");
  else if (opts_.optimized && opts_.placed) return UsageError("graph takes --optimized or --placed, not both");
  else if (opts_.placed && opts_.depth >= 0) return UsageError("--depth with --placed is not supported yet");
  return opts_;
}

// ------------------------------------------------------------------- commands

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

// Reads the script; "-" is stdin. Only a regular file of at most
// kMaxScriptBytes is read: `tfg /dev/zero` or a FIFO is refused at once.
Result<std::string> ReadScript(const std::string& path) {
  const std::string cap = fmt::format("a script is at most {}", FormatByteSize(kMaxScriptBytes));
  if (path == "-") {
    std::string text;
    char buf[1 << 16];
    while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
      text.append(buf, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxScriptBytes) return Error(Code::kResourceExhausted, "cannot read the script from stdin: {}", cap);
    }
    return text;
  }
  Result<std::string> text = ReadRegularFile(path, kMaxScriptBytes);
  if (text.status().code() == Code::kResourceExhausted) {
    return Status(Code::kResourceExhausted, text.status().message() + " (" + cap + ")");
  }
  return text;
}

// The parsed options plus what no flag sets: where the standard library
// is, and whether the command runs kernels.
InterpreterOptions MakeInterpreterOptions(const CliOptions& opts) {
  InterpreterOptions o = opts.interpreter;
  const char* stdlib = std::getenv("TFG_STDLIB_DIR");
  o.stdlib_dir = (stdlib && *stdlib) ? stdlib : "";  // "": next to the binary (stdlib_location.h)
  o.check_only = opts.command == Command::kCheck || opts.command == Command::kGraph;
  return o;
}

void PrintDiagnostic(const Status& status) {
  std::cout.flush();  // the script's output so far comes before its error
  std::string text = FormatDiagnostic(status);
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::cerr << text << std::flush;
}

// `graph --optimized`: the graph as OptimizeGraph leaves it for every node
// nothing consumes (SinkSignature), after a dot comment with the summary.
Result<std::string> OptimizedGraphToDot(const Graph& graph, int depth) {
  WholeGraphSignature sig = SinkSignature(graph);
  CpuDevice cpu(1);
  TFG_ASSIGN_OR_RETURN(OptimizedGraph o, OptimizeGraph(graph, {}, sig.fetches, sig.targets, {}, &cpu));
  return "// optimized: " + o.stats.Summary() + "\n" + GraphToDot(*o.graph, DotOptions{depth});
}

// The graph command's output, after the script ran in check mode.
Result<std::string> GraphOutput(const CliOptions& opts, const Interpreter& interp) {
  if (opts.optimized) return OptimizedGraphToDot(interp.graph(), opts.depth);
  if (opts.placed) return interp.PlacedGraphToDot();
  return GraphToDot(interp.graph(), DotOptions{opts.depth});
}

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

// Output paths given on the command line, checked before anything runs.
Status PrepareOutputs(const CliOptions& opts) {
  const bool writes = opts.command == Command::kRun || opts.command == Command::kRepl;
  if (!writes) return Status::OK();
  if (!opts.interpreter.logdir.empty()) TFG_RETURN_IF_ERROR(PrepareLogdir(opts.interpreter.logdir));
  if (!opts.trace_path.empty()) TFG_RETURN_IF_ERROR(CheckTracePath(opts.trace_path));
  return Status::OK();
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

// run, check and graph: evaluate the script, then report per command.
int RunScriptCommand(const CliOptions& opts) {
  auto text = ReadScript(opts.file);
  if (!text.ok()) {
    std::cerr << "tfg: " << text.status().message() << "\n";
    return kExitUsage;
  }
  std::string path = opts.file == "-" ? "<stdin>" : opts.file;
  Interpreter interp(MakeInterpreterOptions(opts));
  Status status = interp.RunSource(path, *text);
  std::string graph_dot;
  if (status.ok() && opts.command == Command::kCheck) status = interp.CheckPlacement();
  if (status.ok() && opts.command == Command::kGraph) {
    Result<std::string> dot = GraphOutput(opts, interp);
    if (dot.ok()) graph_dot = std::move(*dot);
    status = dot.status();
  }
  if (!status.ok()) PrintDiagnostic(status);
  if (!WriteReports(opts, interp) && status.ok()) return kExitScriptError;
  if (!status.ok()) return kExitScriptError;
  if (opts.command == Command::kCheck) std::cout << path << ": ok\n";
  std::cout << graph_dot;
  std::cout.flush();
  return kExitOk;
}

}  // namespace

Result<CliOptions> ParseArgs(const std::vector<std::string>& args) { return ArgParser(args).Parse(); }

namespace {

const char kSynopsis[] =
    R"(usage: tfg [options] FILE [args...]   run a script (args are visible as `argv`)
       tfg [options]                  start the interactive REPL
       tfg [options] check FILE       parse, build and shape-check without running
       tfg [options] graph FILE --dot print the graph in Graphviz dot syntax,
                                      name scopes as clusters
                                      (--depth N: scopes deeper than N as one box;
                                       --optimized: as optimized before running;
                                       --placed: nodes coloured by device)
       tfg doc ops                    print the reference of every op (docs/ops.md)
       tfg --worker --listen ADDR      serve as a distributed worker
       tfg keygen DIR                 make CURVE keys for --curve-keys DIR
       tfg import MODEL.pb -o M.tfg   a TensorFlow GraphDef as a .tfg script
       tfg export FILE.tfg -o G.pb    a script's graph as a TensorFlow GraphDef
       tfg --help | --version
)";

}  // namespace

std::string Usage() {
  return std::string(kSynopsis) + R"(
FILE may be '-' to read the script from stdin; put '--' before script
arguments that look like options (or before a FILE that starts with '-').

options:
  --threads N   size of the inter- and intra-op thread pools (default: one per core)
  --seed S      seed for random ops, for repeatable runs (default: nondeterministic)
  --quiet, -q   no progress lines
  --check-numerics
                stop a run at the first op whose float output holds NaN or Inf
  --stats       at exit, print kernel time per op type and memory use to stderr
  --hang-timeout S
                fail a run stuck for S seconds with every pending op waiting on a
                queue, naming them (default 10; 0: wait forever)
  --memory-limit BYTES
                the most memory tensors may take at once, e.g. 512M or 4G (K, M, G, T:
                powers of 1024); beyond it an op fails with ResourceExhausted at its
                line instead of the system killing tfg (default: the machine's memory,
                or ulimit -v when lower)
  --trace FILE  write a timeline of kernels and steps (Chrome trace JSON, for Perfetto)
  --logdir DIR  create DIR for TensorBoard event files; scripts read it with logdir()
  --local-devices cpu=N
                N logical CPU devices (/device:cpu:0 ... cpu:N-1) to place ops on
  --device TYPE nodes without a device type of their own prefer TYPE (cpu or gpu)
  --cluster JOB=ADDR;ADDR,JOB=ADDR
                the tasks of a distributed run, as cluster() declares them
                (e.g. ps=tcp://127.0.0.1:7001,worker=tcp://127.0.0.1:7002;tcp://127.0.0.1:7003)
  --heartbeat S seconds between liveness checks of the cluster's tasks (default 1);
                a task silent for three is dead and fails the run
  --master-listen ADDR
                the master's own address for the cluster's tasks (default: a free
                loopback port); tasks on other machines need one they can reach
  --recovery-timeout S
                with checkpoint_every, how long to wait for a dead task to come
                back before the run fails (default 60)
  --worker --listen ADDR
                serve as a distributed worker on ADDR (tcp://127.0.0.1:PORT; a bare
                :PORT binds loopback) until SIGINT or SIGTERM
  --master-timeout S
                (worker) drop a master's state after S seconds without a word from it
                (default 10)
  --data-dir DIR
                (worker) save, restore, readers and summary writers may only touch
                files under DIR; relative paths start there (default: the working
                directory)
  --curve-keys DIR
                encrypt and authenticate all traffic with CURVE, using the keys in
                DIR (made by `tfg keygen DIR`); only clients in DIR/authorized connect
  --compress-transfers
                (master) send f32 tensors between processes as their upper 16 bits
  --log-placement
                print to stderr the device each node runs on, when its run is planned
  --help, -h    show this help
  --version, -V show the version

environment:
  TF_CONFIG     TensorFlow's cluster JSON, as a Kubernetes TFJob sets it: a chief
                task runs FILE with its --cluster and --master-listen, any other
                task is a --worker listening at its own entry; flags win over it

exit codes: 0 ok, 1 script error, 2 usage error, 130 interrupted (Ctrl-C)
)";
}

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
