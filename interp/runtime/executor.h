// Runs one step of a prepared Plan by dependency counting: each node has a
// pending count of unfinished inputs (data and control); a node that
// completes hands its outputs to its consumers' input slots and decrements
// their counts; nodes reaching zero are ready. Cheap ready nodes and one
// expensive one run inline on the thread that made them ready (a chain never
// goes through the pool queue); the other expensive ones go to the
// inter-op pool. Async kernels never block a thread: their `done` callback
// continues the step.
//
// Thread safety: a Plan is immutable and shared by concurrent steps; all
// per-step state (pending counts, tensors, status) belongs to the step.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "interp/runtime/plan.h"

namespace tfg {

class CancellationManager;
class ResourceMgr;
class RunStats;
class ThreadPool;
class Tracer;

// Counts live steps, including steps abandoned at a deadline whose kernels
// still run, so a Session can wait for them before it is destroyed.
class StepCounter {
 public:
  void Add();
  void Remove();
  void WaitForZero();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t live_ = 0;
};

struct ExecutorEnv {
  ThreadPool* pool = nullptr;
  ResourceMgr* resources = nullptr;
  StepCounter* live_steps = nullptr;
  // --check-numerics: a floating-point output holding NaN or Inf fails its
  // node like a kernel error. Off, it costs one branch per node.
  bool check_numerics = false;
  // --stats: each kernel's time is recorded here (per op type). Null: not
  // timed, one branch per node.
  RunStats* stats = nullptr;
  // --trace: each kernel's span is recorded here. Null: not traced.
  Tracer* tracer = nullptr;
  // The hang watchdog (SessionOptions::hang_timeout_seconds; 0: off). It
  // only fires when no asynchronous kernel of any step of the session
  // finished meanwhile either: `async_done` counts them.
  double hang_timeout_seconds = 0;
  std::atomic<int64_t>* async_done = nullptr;
  // The run() this step is a device's part of (-1: the step is the whole
  // run): traces name a kernel's run, not the part's own step id.
  int64_t run_id = -1;
};

// Runs `plan` with `feeds` (indexed as the plan's FeedEdges say) and
// returns one tensor per fetch. The first kernel error (annotated with the
// node's name and span) stops scheduling; it is returned once the kernels
// already running finish. With `env.check_numerics`, the first node whose
// outputs hold NaN or Inf fails the same way. With `timeout_seconds` > 0 the step fails with
// DeadlineExceeded when not done by then; kernels still running finish in
// the background and their results are dropped. When `external` (may be
// null) is cancelled, the step fails with Cancelled. A step stuck on queues
// fails as ExecutorEnv::hang_timeout_seconds says.
Result<std::vector<Tensor>> RunStep(std::shared_ptr<const Plan> plan, const std::vector<Tensor>& feeds,
                                    const ExecutorEnv& env, const StepInfo& info, double timeout_seconds,
                                    CancellationManager* external = nullptr);

// Steady-clock nanoseconds: the time base of --stats and --trace.
int64_t NowNanos();

// OK when no floating-point tensor of `outputs` holds NaN or Inf; else
// InvalidArgument "produced NaN (output 0 has 3 NaN, 0 Inf of 40 values)",
// for the caller to put the producer's name in front. Tensors of other
// dtypes are not looked at.
Status CheckNumerics(const Tensor* outputs, int num_outputs);

}  // namespace tfg
