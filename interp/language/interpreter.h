// The interpreter facade used by the CLI and the REPL: evaluates .tfg source
// (host statements run at once, ops on graph tensors build the graph, run()
// executes it through the Session).
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "interp/runtime/session.h"
#include "ops/core/graph.h"
#include "ops/core/status.h"

namespace tfg {

// What the interpreter is started with. Each command-line option is
// declared once, in the struct of the layer that uses it: the graph's run
// options in `session`, the language's here, the CLI's own in CliOptions
// (interp/app/cli.h), which carries this struct.
struct InterpreterOptions {
  // --threads, --seed, --check-numerics, --hang-timeout, --stats, --trace,
  // --local-devices, --device: how the session runs the graph.
  SessionOptions session;
  std::vector<std::string> argv;  // script arguments, visible as `argv`
  bool quiet = false;             // --quiet: no progress lines
  std::string logdir;             // --logdir DIR: what logdir() returns ("": none)
  std::string cluster;            // --cluster JOB=ADDR;ADDR,...: connected before the script runs
  double heartbeat = 1;           // --heartbeat S: liveness checks of --cluster's tasks
  double recovery_timeout = 60;   // --recovery-timeout S: how long a dead task may take to come back
  std::string master_listen;      // --master-listen ADDR: the master's address for its tasks ("": loopback)
  // --log-placement: where each node runs, to `err` (a stream, which the
  // command line cannot name, hence not session.placement_log).
  bool log_placement = false;
  // A limit for running untrusted scripts (the fuzzer), with
  // session.max_eager_elements: a script that runs more statements fails
  // with ResourceExhausted. 0: no limit.
  int64_t max_statements = 0;
  // `tfg check` / `tfg graph`: build the graph and shape-check it, but run
  // no kernels: run() returns zero tensors of the fetches' static shapes
  // (unknown dims taken as 1) and print() prints nothing.
  bool check_only = false;
  std::string stdlib_dir;       // where `import nn` finds nn.tfg
  std::ostream* out = nullptr;  // print() output; null: std::cout
  std::ostream* err = nullptr;  // warnings; null: std::cerr
};

class Interpreter {
 public:
  explicit Interpreter(InterpreterOptions options);
  ~Interpreter();

  // Runs a whole script. A failing assert is an error with Code::kAborted.
  Status RunFile(const std::string& path);
  Status RunSource(const std::string& path, const std::string& text);

  // REPL: evaluates one complete chunk (one or more statements) in the
  // persistent top-level scope. When the chunk is a single expression
  // statement whose value is not none, returns its printed form (a graph
  // tensor echoes as what it is, name, dtype, shape and device: run(x) runs
  // it); else "".
  Result<std::string> EvalInteractive(const std::string& text);
  // Tab completion of the word `prefix` (interp/language/completion.cc):
  // names visible at top level, ops, builtins and prelude functions; after
  // a dot, a module's members or a value's attributes (`W.`); inside a
  // call's parentheses (`line_before` is the line up to the word), its
  // keyword arguments as `name=`. Names starting with '_' only when the
  // prefix does. Sorted.
  std::vector<std::string> Completions(const std::string& prefix, const std::string& line_before = "");

  const Graph& graph() const;
  // The graph in Graphviz dot syntax (nodes labelled name/op, edges dtype+shape).
  std::string GraphToDot() const;
  // The same with every node filled with the colour of the device the
  // placer puts it on (`tfg graph --placed`); placement errors as a run
  // would report them.
  Result<std::string> PlacedGraphToDot() const;
  // Places the whole graph as `tfg graph --placed` does, for `tfg check`:
  // contradictory device constraints fail naming both lines, whether or
  // not a run() would have reached the nodes.
  Status CheckPlacement() const;
  // With options.stats: the table of kernel time per op type and memory
  // (RunStats::Format); else "".
  std::string StatsReport() const;
  // With options.trace: writes the timeline of kernels and steps so far as
  // Chrome trace-event JSON.
  Status WriteTrace(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Graphviz dot for any graph: one box per node labelled "name\nop", data
// edges labelled "dtype[shape]", control edges dashed.
std::string GraphToDot(const Graph& graph);
// With `device_of` (a device index by node id) and the devices' names:
// nodes filled by device, with a legend.
std::string GraphToDot(const Graph& graph, const std::vector<int32_t>& device_of,
                       const std::vector<std::string>& device_names);

}  // namespace tfg
