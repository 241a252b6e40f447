#include "interp/runtime/executor.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>

#include "devices/device_copy.h"
#include "interp/runtime/executor_step.h"
#include "interp/runtime/fuse_elementwise.h"
#include "interp/runtime/run_stats.h"
#include "interp/runtime/thread_pool.h"
#include "interp/runtime/trace.h"
#include "ops/core/memory_budget.h"
#include "ops/core/resource_mgr.h"

namespace tfg {

void StepCounter::Add() {
  std::lock_guard<std::mutex> lock(mu_);
  ++live_;
}

void StepCounter::Remove() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--live_ == 0) cv_.notify_all();
}

void StepCounter::WaitForZero() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return live_ == 0; });
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// A switch leaves its untaken output unset (dead); every other kernel must
// set each output with its declared dtype.
Status CheckOutputs(const PlanNode& pn, const Tensor* outs) {
  for (int32_t i = 0; i < pn.num_outputs; ++i) {
    DType declared = pn.construction.output_types[i];
    if (outs[i].dtype() == declared && outs[i].IsInitialized()) continue;
    if ((pn.kind == NodeKind::kSwitch || pn.outputs_may_be_dead) && !outs[i].IsInitialized()) continue;
    if (!outs[i].IsInitialized()) return Internal("the kernel did not set output {}", i);
    return Internal("the kernel produced {} for output {}, declared {}", outs[i].DebugString(), i,
                    DTypeName(declared));
  }
  return Status::OK();
}

struct NonFiniteCount {
  int64_t nan = 0;
  int64_t inf = 0;
};

template <typename T>
NonFiniteCount CountNonFinite(const T* values, int64_t n) {
  NonFiniteCount c;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) {
      ++c.nan;
    } else if (std::isinf(values[i])) {
      ++c.inf;
    }
  }
  return c;
}

// IEEE half by its bits: all-ones exponent, then the mantissa tells NaN from Inf.
NonFiniteCount CountNonFiniteHalf(const void* data, int64_t n) {
  NonFiniteCount c;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t bits;
    std::memcpy(&bits, bytes + 2 * i, sizeof(bits));
    if ((bits & 0x7C00) != 0x7C00) continue;
    if (bits & 0x03FF) {
      ++c.nan;
    } else {
      ++c.inf;
    }
  }
  return c;
}

NonFiniteCount CountNonFinite(const Tensor& t) {
  if (!t.IsInitialized() || t.raw_data() == nullptr) return {};
  switch (t.dtype()) {
    case DType::kF16: return CountNonFiniteHalf(t.raw_data(), t.num_elements());
    case DType::kF32: return CountNonFinite(t.data<float>(), t.num_elements());
    case DType::kF64: return CountNonFinite(t.data<double>(), t.num_elements());
    default: return {};
  }
}

// What an asynchronous kernel needs until its `done` runs.
struct AsyncCall {
  AsyncCall(const PlanNode& pn, Tensor* inputs, ResourceMgr* resources, const StepInfo* info)
      : outputs(pn.num_outputs), ctx(&pn.construction, inputs, pn.num_inputs, outputs.data(), pn.num_outputs,
                                     resources, info) {}
  std::vector<Tensor> outputs;
  OpKernelContext ctx;
};

}  // namespace

Step::Step(std::shared_ptr<const Plan> plan, const ExecutorEnv& env, const StepInfo& info)
    : live_(env.live_steps), plan_(std::move(plan)), env_(env), info_(info),
      root_(&plan_->frames[0], 0, nullptr, 0) {
  info_.cancellation = &cancellation_;
  root_.iterations.push_back(plan_->AcquireSlots());
}

// A step whose every node ran left its root slots empty: they can serve
// another step. (An abandoned or failed step's may hold tensors.)
Step::~Step() {
  // Per-step state kernels left behind (a while_loop gradient's saved
  // values), also when the step failed before using it up.
  if (env_.resources) env_.resources->DropStepContainers(info_.step_id);
  if (outstanding_.load(std::memory_order_acquire) == 0 && status_.ok() && !root_.iterations.empty()) {
    plan_->ReleaseSlots(std::move(root_.iterations[0]));
  }
}

void Step::Start(const std::vector<Tensor>& feeds) {
  const Plan& p = *plan_;
  fetched_.resize(p.num_fetches);
  fetch_dead_.assign(p.num_fetches, 0);
  StepSlots& root = *root_.iterations[0];
  for (const FeedEdge& e : p.feed_edges) {
    (e.dst_node < 0 ? fetched_ : root.inputs)[e.dst_slot] = feeds[e.feed_index];
  }
  root.outstanding_ops = static_cast<int32_t>(p.roots.size());
  outstanding_.store(static_cast<int64_t>(p.roots.size()), std::memory_order_relaxed);
}

Result<std::vector<Tensor>> Step::Run(const std::vector<Tensor>& feeds, double timeout_seconds,
                                      CancellationManager* external) {
  Start(feeds);
  if (plan_->roots.empty()) return std::move(fetched_);
  CancellationManager::Token token = 0;
  if (external) {
    // The callback holds the step: it may still run while Run returns.
    token = external->Register(
        [self = shared_from_this()] { self->Cancel(Error(Code::kCancelled, "the run was cancelled")); });
    if (token == CancellationManager::kAlreadyCancelled) Cancel(Error(Code::kCancelled, "the run was cancelled"));
  }
  ReadyQueue q;
  for (int32_t r : plan_->roots) q.push(TaggedNode{r, false, &root_, 0, root_.iterations[0].get()});
  // Only a plan with asynchronous kernels can hang waiting on others. The
  // caller must stay free to notice a deadline or a hang: then everything
  // runs on the pool.
  if (!plan_->has_async) env_.hang_timeout_seconds = 0;
  if (timeout_seconds > 0 || env_.hang_timeout_seconds > 0) {
    ScheduleAll(q);
  } else {
    ReadyQueue inline_q;
    bool kept = false;
    while (!q.empty()) MakeReady(q.pop(), inline_q, kept);
    RunInline(inline_q);
  }
  auto result = Wait(timeout_seconds);
  if (external && token != CancellationManager::kAlreadyCancelled) external->Deregister(token);
  return result;
}

void Step::Process(const TaggedNode& t, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[t.id];
  OutputBuffer buffer(pn.num_outputs);
  Tensor* outs = buffer.data();
  const bool run = !t.dead && !cancelled_.load(std::memory_order_relaxed);
  if (run && pn.async) {
    RunAsync(t);
    return;
  }
  const bool ok = !run || Compute(pn, t.slots->inputs.data() + pn.input_start, outs);
  ClearInputs(t);
  TaggedNode done = t;
  done.dead = t.dead || !ok;
  ReadyQueue ready;
  int32_t queued = Propagate(done, outs, ready);
  // Only the watchdog reads it, and only plans with async kernels have one.
  if (env_.hang_timeout_seconds > 0) completed_.fetch_add(1, std::memory_order_relaxed);
  // Counted before any of them can run and finish elsewhere.
  if (queued > 1) outstanding_.fetch_add(queued - 1, std::memory_order_acq_rel);
  // Cheap nodes and one expensive one continue on this thread; other
  // expensive ones go to the pool, to run in parallel.
  bool kept = false;
  while (!ready.empty()) MakeReady(ready.pop(), q, kept);
  if (queued == 0) Retire();
}

bool Step::Compute(const PlanNode& pn, Tensor* inputs, Tensor* outs) {
  Status s;
  if (pn.kind == NodeKind::kOp || !ForwardControlFlow(pn, inputs, outs, s)) {
    OpKernelContext ctx(&pn.construction, inputs, pn.num_inputs, outs, pn.num_outputs, env_.resources, &info_);
    const int64_t start = Timed() ? NowNanos() : 0;
    // A kernel (or a library it calls: Eigen, zlib, std::string) that runs
    // out of memory throws std::bad_alloc: it fails the node like any
    // error, at its line, and the step is cancelled.
    try {
      s = pn.kernel->Compute(ctx);
    } catch (const std::bad_alloc&) {
      s = OutOfMemoryError();
    }
    if (Timed()) RecordKernel(pn, start);
    if (s.ok()) s = CheckNodeOutputs(pn, outs);
  }
  if (s.ok()) return true;
  Fail(pn, std::move(s));
  return false;
}

// One node finished without making another ready: the step may be over.
void Step::Retire() {
  if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
}

// `done` may run inside ComputeAsync or on a foreign thread: the nodes it
// makes ready go to the pool rather than growing that thread's stack.
void Step::RunAsync(const TaggedNode& t) {
  const PlanNode& pn = plan_->nodes[t.id];
  auto* call = new AsyncCall(pn, t.slots->inputs.data() + pn.input_start, env_.resources, &info_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_.emplace(&call->ctx, t.id);
  }
  const int64_t start = Timed() ? NowNanos() : 0;
  auto finish = [self = shared_from_this(), t, call, start](Status s) {
    const PlanNode& node = self->plan_->nodes[t.id];
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      self->waiting_.erase(&call->ctx);
    }
    if (self->env_.async_done) self->env_.async_done->fetch_add(1, std::memory_order_relaxed);
    if (self->Timed()) self->RecordKernel(node, start, /*waited=*/true);
    if (s.ok()) s = self->CheckNodeOutputs(node, call->outputs.data());
    const bool ok = s.ok();
    if (!ok) self->Fail(node, std::move(s));
    self->ClearInputs(t);
    TaggedNode done = t;
    done.dead = !ok;
    ReadyQueue q;
    int32_t queued = self->Propagate(done, call->outputs.data(), q);
    delete call;
    self->completed_.fetch_add(1, std::memory_order_relaxed);
    if (queued > 1) self->outstanding_.fetch_add(queued - 1, std::memory_order_acq_rel);
    self->ScheduleAll(q);
    if (queued == 0) self->Retire();
  };
  // A kernel that throws may or may not have called `done` already: the
  // node finishes exactly once either way.
  auto finished = std::make_shared<std::atomic<bool>>(false);
  auto done = [finish = std::move(finish), finished](Status s) {
    if (!finished->exchange(true)) finish(std::move(s));
  };
  try {
    pn.kernel->ComputeAsync(call->ctx, done);
  } catch (const std::bad_alloc&) {
    done(OutOfMemoryError());
  }
}

Status Step::CheckNodeOutputs(const PlanNode& pn, Tensor* outs) const {
  Status s = CheckOutputs(pn, outs);
  // GPU outputs are in device memory: they are checked when a _recv brings
  // them to the CPU.
  const Device* device = pn.construction.device;
  if (s.ok() && env_.check_numerics && (device == nullptr || UsesHostMemory(*device))) {
    s = CheckNumerics(outs, pn.num_outputs);
    // The message starts with the node, so AnnotateNodeError adds only the span.
    if (!s.ok()) s.Prepend(fmt::format("{} '{}' ", pn.node->op_name(), pn.node->name()));
  }
  return s;
}

void Step::RecordKernel(const PlanNode& pn, int64_t start, bool waited) {
  const int64_t end = NowNanos();
  if (env_.stats) env_.stats->Record(KernelLabel(*pn.node), end - start);
  if (!env_.tracer) return;
  const int64_t step = env_.run_id >= 0 ? env_.run_id : info_.step_id;
  if (waited) {
    env_.tracer->Wait(*pn.node, step, start, end);
  } else {
    env_.tracer->Kernel(*pn.node, step, start, end);
  }
}

void Step::MakeReady(const TaggedNode& t, ReadyQueue& q, bool& kept_expensive) {
  const PlanNode& pn = plan_->nodes[t.id];
  if (!pn.expensive || pn.async || t.dead || cancelled_.load(std::memory_order_relaxed)) {
    q.push(t);
  } else if (!kept_expensive) {
    kept_expensive = true;
    q.push(t);
  } else {
    Schedule(t);
  }
}

void Step::ScheduleAll(ReadyQueue& q) {
  while (!q.empty()) Schedule(q.pop());
}

void Step::Schedule(const TaggedNode& t) {
  env_.pool->Schedule([self = shared_from_this(), t] {
    ReadyQueue q;
    q.push(t);
    self->RunInline(q);
  });
}

void Step::Fail(const PlanNode& pn, Status status) {
  Cancel(AnnotateNodeError(std::move(status), *pn.node));
}

// Records the first error, stops scheduling kernels, and wakes blocked
// ones (queues) so the step can end.
void Step::Cancel(Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = std::move(status);
  }
  cancelled_.store(true, std::memory_order_relaxed);
  cancellation_.StartCancel();
}

void Step::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

// The hang watchdog wakes this often to look for a stuck step.
static double WatchdogPeriod(double hang_timeout) { return std::min(1.0, std::max(0.01, hang_timeout / 4)); }

Result<std::vector<Tensor>> Step::Wait(double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double hang = env_.hang_timeout_seconds;
  auto last_progress = start;
  int64_t last_completed = -1, last_async = -1;
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    auto wake = Clock::time_point::max();
    if (timeout_seconds > 0) wake = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
    if (hang > 0) wake = std::min(wake, Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(WatchdogPeriod(hang))));
    if (wake == Clock::time_point::max()) {
      cv_.wait(lock, [&] { return done_; });
      break;
    }
    if (cv_.wait_until(lock, wake, [&] { return done_; })) break;
    const auto now = Clock::now();
    if (timeout_seconds > 0 && now - start >= std::chrono::duration<double>(timeout_seconds)) {
      lock.unlock();
      Cancel(Error(Code::kDeadlineExceeded, "run() did not finish within {} s; the step was cancelled",
                   timeout_seconds));
      lock.lock();
      return status_;
    }
    // Progress: a node of this step, or an asynchronous kernel of any step.
    const int64_t completed = completed_.load(std::memory_order_relaxed);
    const int64_t async = env_.async_done ? env_.async_done->load(std::memory_order_relaxed) : 0;
    const bool only_waiting = !waiting_.empty() && static_cast<int64_t>(waiting_.size()) ==
                                                      outstanding_.load(std::memory_order_relaxed);
    if (completed != last_completed || async != last_async || !only_waiting) {
      last_completed = completed;
      last_async = async;
      last_progress = now;
    } else if (now - last_progress >= std::chrono::duration<double>(hang)) {
      std::string report = HangReport();
      lock.unlock();
      Cancel(Error(Code::kDeadlineExceeded, "{}", report));
      lock.lock();
      return status_;
    }
  }
  if (!status_.ok()) return status_;
  for (size_t i = 0; i < fetch_dead_.size(); ++i) {
    if (fetch_dead_[i]) {
      return Error(Code::kInvalidArgument, "fetch {} was not computed: it lies on a branch of cond that did not run",
                   i);
    }
    if (!fetched_[i].IsInitialized()) return Internal("fetch {} was never produced", i);
  }
  return std::move(fetched_);
}

// Every op still pending waits on a queue: name each, what it waits for
// and the line that built it. Called with mu_ held.
std::string Step::HangReport() {
  std::string report = fmt::format(
      "the run is stuck: for {} s nothing could run and every pending op waits on a queue:", env_.hang_timeout_seconds);
  for (const auto& [ctx, id] : waiting_) {
    const PlanNode& pn = plan_->nodes[id];
    std::string on = pn.kernel->BlockedOn(*ctx);
    report += fmt::format("\n  {} '{}' at {}{}", pn.node->op_name(), pn.node->name(), pn.node->span().ToString(),
                          on.empty() ? "" : " waits on " + on);
  }
  report += "\n(is a queue runner missing, or was the queue closed too early? --hang-timeout changes the wait)";
  return report;
}

Status CheckNumerics(const Tensor* outputs, int num_outputs) {
  for (int i = 0; i < num_outputs; ++i) {
    NonFiniteCount c = CountNonFinite(outputs[i]);
    if (c.nan == 0 && c.inf == 0) continue;
    const char* produced = c.nan == 0 ? "Inf" : c.inf == 0 ? "NaN" : "NaN and Inf";
    return InvalidArgument("produced {} (output {} has {} NaN, {} Inf of {} values)", produced, i, c.nan, c.inf,
                           outputs[i].num_elements());
  }
  return Status::OK();
}

Result<std::vector<Tensor>> RunStep(std::shared_ptr<const Plan> plan, const std::vector<Tensor>& feeds,
                                    const ExecutorEnv& env, const StepInfo& info, double timeout_seconds,
                                    CancellationManager* external) {
  auto step = std::make_shared<Step>(std::move(plan), env, info);
  return step->Run(feeds, timeout_seconds, external);
}

}  // namespace tfg
