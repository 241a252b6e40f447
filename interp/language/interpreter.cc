#include "interp/language/interpreter.h"

#include <algorithm>
#include <set>

#include "ops/core/device.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/completion.h"
#include "interp/language/evaluator.h"
#include "interp/runtime/interrupt.h"
#include "interp/language/modules.h"
#include "interp/language/parser.h"
#include "interp/runtime/placer.h"
#include "interp/distributed/cluster.h"
#include "interp/runtime/session.h"
#include "interp/runtime/device_set.h"
#include "interp/runtime/queue_runner.h"
#include "interp/runtime/run_stats.h"
#include "interp/runtime/trace.h"

namespace tfg {

struct Interpreter::Impl {
  explicit Impl(InterpreterOptions options) : ev(std::move(options)) {}
  // --cluster: connected once, before the first code runs.
  Status ConnectCluster() {
    if (cluster_done || ev.options().cluster.empty()) return Status::OK();
    cluster_done = true;
    TFG_ASSIGN_OR_RETURN(ClusterSpec spec, ParseClusterFlag(ev.options().cluster));
    return ConnectSessionToCluster(ev.session(), std::move(spec), ev.options().heartbeat, !ev.options().check_only,
                                   ev.options().master_listen);
  }
  Evaluator ev;
  bool cluster_done = false;
  int chunks = 0;  // REPL chunks evaluated, to name their source
};

Interpreter::Interpreter(InterpreterOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
// Runner threads use the session: stop them before it goes.
Interpreter::~Interpreter() { (void)QueueRunners::Finish(impl_->ev.session()); }

Status Interpreter::RunFile(const std::string& path) {
  TFG_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return RunSource(path, text);
}

namespace {

// The end of a script: its queue runners stop (their error is the
// script's when it has none of its own), and a run cancelled by Ctrl-C
// reads as the interruption it was.
Status FinishScript(Status status, Session& session) {
  Status runners = QueueRunners::Finish(session);
  if (status.ok()) status = runners;
  if (!status.ok() && interrupt::Requested()) return Status(Code::kCancelled, "interrupted (Ctrl-C)", status.span());
  return status;
}

}  // namespace

Status Interpreter::RunSource(const std::string& path, const std::string& text) {
  interrupt::ScriptScope interruptible;
  TFG_RETURN_IF_ERROR(impl_->ConnectCluster());
  auto file = std::make_shared<SourceFile>(path, text);
  TFG_ASSIGN_OR_RETURN(std::shared_ptr<ast::Program> program, ParseProgram(file));
  Status status = impl_->ev.ExecProgram(program, impl_->ev.main_globals());
  CloseProgressLine(impl_->ev);  // the error, or the shell's prompt, on a line of its own
  return FinishScript(std::move(status), impl_->ev.session());
}

Result<std::string> Interpreter::EvalInteractive(const std::string& text) {
  // Ctrl-C cancels this chunk alone: the session and its variables stay.
  interrupt::ScriptScope interruptible;
  Evaluator& ev = impl_->ev;
  auto eval = [&]() -> Result<std::string> {
    TFG_RETURN_IF_ERROR(impl_->ConnectCluster());
    auto file = std::make_shared<SourceFile>("<stdin>", text);
    ++impl_->chunks;
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ast::Program> program, ParseProgram(file));
    Value last;
    TFG_RETURN_IF_ERROR(ev.ExecProgram(program, ev.main_globals(), &last));
    // Only a chunk that is one expression shows its value, as the REPL promises.
    if (program->body.size() != 1 || last.is_none()) return std::string();
    // Graph tensors echo as what they are (name, dtype, shape, device), as
    // in TensorFlow: typing `y` must not run it (its placeholders may be
    // unfed, its run long); run(y) computes it.
    return Repr(last);
  };
  Result<std::string> shown = eval();
  CloseProgressLine(ev);
  if (!shown.ok() && interrupt::Requested()) {
    return Status(Code::kCancelled, "interrupted (Ctrl-C)", shown.status().span());
  }
  return shown;
}

std::vector<std::string> Interpreter::Completions(const std::string& prefix, const std::string& line_before) {
  return CompleteWord(impl_->ev, prefix, line_before);
}

const Graph& Interpreter::graph() const { return impl_->ev.graph(); }

std::string Interpreter::GraphToDot() const { return tfg::GraphToDot(impl_->ev.graph()); }

Result<std::string> Interpreter::PlacedGraphToDot() const {
  const DeviceSet& devices = impl_->ev.session().devices();
  TFG_ASSIGN_OR_RETURN(std::vector<int32_t> device_of,
                       PlaceGraph(impl_->ev.graph(), devices, impl_->ev.session().options().default_device_type));
  std::vector<std::string> names;
  for (Device* d : devices.devices()) names.push_back(d->name());
  return tfg::GraphToDot(impl_->ev.graph(), device_of, names);
}

Status Interpreter::CheckPlacement() const {
  const Session& session = impl_->ev.session();
  return PlaceGraph(impl_->ev.graph(), session.devices(), session.options().default_device_type).status();
}

std::string Interpreter::StatsReport() const {
  const RunStats* stats = impl_->ev.session().stats();
  if (stats == nullptr) return "";
  return stats->Format({impl_->ev.session().cpu_device()->allocator()});
}

Status Interpreter::WriteTrace(const std::string& path) const {
  const Tracer* tracer = impl_->ev.session().tracer();
  if (tracer == nullptr) return FailedPrecondition("the interpreter was not started with --trace");
  return tracer->Write(path);
}

}  // namespace tfg
