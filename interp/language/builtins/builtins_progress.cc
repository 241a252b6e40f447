// progress(step, steps, loss, epoch, epochs, batch): the progress line of a
// training loop on stderr, drawn by interp/runtime/progress.h. Its state (epoch
// start, running loss) lives in the session's resources, so it is per
// interpreter and outlives the call.
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "interp/language/builtins/builtins.h"
#include "interp/runtime/progress.h"
#include "ops/core/resource_mgr.h"

namespace tfg {
namespace {

// A container of its own: `reset()` of the variables leaves the line alone.
constexpr const char* kProgressContainer = "tfg.progress";

class ProgressState : public Resource {
 public:
  explicit ProgressState(bool terminal) : meter(terminal, SteadySeconds) {}
  std::string DebugString() const override { return "progress meter"; }
  ProgressMeter meter;

 private:
  static double SteadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};

Status Fail(const BoundArgs& args, size_t i, const std::string& msg) {
  return Status(Code::kInvalidArgument, "progress(): " + msg, args.spans[i]);
}

Result<std::optional<int64_t>> OptionalInt(const BoundArgs& args, size_t i) {
  if (args[i].is_none()) return std::optional<int64_t>();
  TFG_ASSIGN_OR_RETURN(int64_t v, IntArg(args, i));
  return std::optional<int64_t>(v);
}

Result<std::optional<double>> LossArg(const BoundArgs& args, size_t i) {
  if (args[i].is_none()) return std::optional<double>();
  if (args[i].is_graph()) {
    return Fail(args, i, "'loss' is a graph tensor; run() it first and pass the value (loss_value = run(loss))");
  }
  TFG_ASSIGN_OR_RETURN(double v, NumberArg(args, i));
  return std::optional<double>(v);
}

Result<ProgressStep> ReadStep(const BoundArgs& args) {
  ProgressStep s;
  TFG_ASSIGN_OR_RETURN(s.step, IntArg(args, 0));
  TFG_ASSIGN_OR_RETURN(s.steps, IntArg(args, 1));
  TFG_ASSIGN_OR_RETURN(s.loss, LossArg(args, 2));
  TFG_ASSIGN_OR_RETURN(s.epoch, OptionalInt(args, 3));
  TFG_ASSIGN_OR_RETURN(s.epochs, OptionalInt(args, 4));
  TFG_ASSIGN_OR_RETURN(s.batch, OptionalInt(args, 5));
  if (s.steps < 1) return Fail(args, 1, fmt::format("'steps' must be at least 1, got {}", s.steps));
  if (s.step < 0 || s.step > s.steps) {
    return Fail(args, 0, fmt::format("'step' must be from 0 to steps ({}), got {}", s.steps, s.step));
  }
  if (s.epoch && *s.epoch < 0) return Fail(args, 3, fmt::format("'epoch' must be at least 0, got {}", *s.epoch));
  if (s.epochs && !s.epoch) return Fail(args, 4, "'epochs' needs 'epoch' too");
  if (s.epochs && (*s.epochs < 1 || *s.epoch > *s.epochs)) {
    return Fail(args, 4, fmt::format("'epochs' ({}) must be at least 1 and at least 'epoch' ({})", *s.epochs,
                                     *s.epoch));
  }
  if (s.batch && *s.batch < 1) return Fail(args, 5, fmt::format("'batch' must be at least 1, got {}", *s.batch));
  return s;
}

Result<Value> Progress(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(ProgressStep s, ReadStep(args));
  if (ev.options().quiet || ev.options().check_only) return Value();
  // A stream given by an embedder is never a terminal.
  bool terminal = &ev.err() == &std::cerr && isatty(STDERR_FILENO);
  auto state = ev.session().resources()->LookupOrCreate<ProgressState>(
      kProgressContainer, "meter", [terminal] { return std::make_shared<ProgressState>(terminal); });
  if (!state.ok()) return Status(state.status()).WithSpan(args.span);
  std::string text = (*state)->meter.Update(s);
  if (!text.empty()) ev.err() << text << std::flush;
  return Value();
}

}  // namespace

void CloseProgressLine(BuiltinContext& ev) {
  auto state = ev.session().resources()->Lookup<ProgressState>(kProgressContainer, "meter");
  if (!state) return;
  const std::string text = state->meter.CloseLine();
  if (!text.empty()) ev.err() << text << std::flush;
}

namespace {

BuiltinRegistrar reg({
    BuiltinDef{"progress",
               {{"step", std::nullopt},
                {"steps", std::nullopt},
                {"loss", Value()},
                {"epoch", Value()},
                {"epochs", Value()},
                {"batch", Value()}},
               "a training loop's progress line on stderr, called once per step (`step` of `steps` done in this "
               "epoch): running mean of `loss` over the epoch, examples/s with `batch` (else steps/s); in place on "
               "a terminal, about ten plain lines per epoch when piped; `--quiet` silences it",
               Progress},
});

}  // namespace
}  // namespace tfg
