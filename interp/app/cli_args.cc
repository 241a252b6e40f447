// `tfg`'s argument parsing: the words after argv[0] into CliOptions
// (cli.h). Kept apart from running the commands so that every option's
// rules and errors read in one place, and are tested without a process.
#include "interp/app/cli.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "interp/app/tf_config.h"
#include "interp/distributed/cluster.h"
#include "net/transport.h"
#include "ops/core/memory_budget.h"

namespace tfg::cli {
namespace {

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

}  // namespace

Result<CliOptions> ParseArgs(const std::vector<std::string>& args) { return ArgParser(args).Parse(); }

}  // namespace tfg::cli
