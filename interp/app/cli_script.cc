// The script commands of the command line (cli_script.h): read the script,
// evaluate it, and print what `run`, `check` or `graph` reports.
#include "interp/app/cli_script.h"

#include <cstdlib>
#include <iostream>

#include "devices/cpu/cpu_device.h"
#include "interp/app/cli_outputs.h"
#include "interp/app/graph_dot.h"
#include "interp/runtime/graph_optimizer.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"

namespace tfg::cli {
namespace {

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

}  // namespace

// The parsed options plus what no flag sets: where the standard library
// is, and whether the command runs kernels.
InterpreterOptions MakeInterpreterOptions(const CliOptions& opts) {
  InterpreterOptions o = opts.interpreter;
  const char* stdlib = std::getenv("TFG_STDLIB_DIR");
  o.stdlib_dir = (stdlib && *stdlib) ? stdlib : "";  // "": next to the binary (stdlib_location.h)
  o.check_only = opts.command == Command::kCheck || opts.command == Command::kGraph;
  return o;
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

}  // namespace tfg::cli
