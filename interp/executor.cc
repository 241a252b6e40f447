#include "interp/executor.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>

#include "interp/run_stats.h"
#include "interp/thread_pool.h"
#include "interp/trace.h"

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

// A LIFO of ready node indices: a small inline array first, so the common
// case allocates nothing.
class ReadyQueue {
 public:
  bool empty() const { return size_ == 0 && overflow_.empty(); }
  void push(int32_t id) {
    if (overflow_.empty() && size_ < inline_.size()) {
      inline_[size_++] = id;
    } else {
      overflow_.push_back(id);
    }
  }
  int32_t pop() {
    if (!overflow_.empty()) {
      int32_t id = overflow_.back();
      overflow_.pop_back();
      return id;
    }
    return inline_[--size_];
  }

 private:
  std::array<int32_t, 32> inline_;
  size_t size_ = 0;
  std::vector<int32_t> overflow_;
};

Status CheckOutputs(const PlanNode& pn, const Tensor* outs) {
  for (int32_t i = 0; i < pn.num_outputs; ++i) {
    DType declared = pn.construction.output_types[i];
    if (outs[i].dtype() == declared && outs[i].IsInitialized()) continue;
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

class Step : public std::enable_shared_from_this<Step> {
 public:
  Step(std::shared_ptr<const Plan> plan, const ExecutorEnv& env, const StepInfo& info)
      : live_(env.live_steps), plan_(std::move(plan)), env_(env), info_(info), slots_(plan_->AcquireSlots()),
        root_(*slots_) {}
  // Every node completed means every slot was emptied: the arrays can
  // serve another step.
  ~Step() {
    if (remaining_.load(std::memory_order_acquire) == 0) plan_->ReleaseSlots(std::move(slots_));
  }

  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& feeds, double timeout_seconds);

 private:
  void Start(const std::vector<Tensor>& feeds);
  void RunInline(ReadyQueue& q) {
    while (!q.empty()) Process(q.pop(), q);
  }
  void Process(int32_t id, ReadyQueue& q);
  void RunAsync(int32_t id);
  void Complete(int32_t id, bool propagate, ReadyQueue& q);
  void MakeReady(int32_t id, ReadyQueue& q, bool& kept_expensive);
  void Schedule(int32_t id);
  void Fail(const PlanNode& pn, Status status);
  // The message starts with the node, so AnnotateNodeError adds only the span.
  static Status CheckNodeNumerics(const PlanNode& pn, const Tensor* outs) {
    Status s = CheckNumerics(outs, pn.num_outputs);
    if (!s.ok()) s.Prepend(fmt::format("{} '{}' ", pn.node->op_name(), pn.node->name()));
    return s;
  }
  // --stats and --trace: the kernel of `pn` ran from `start` until now.
  bool Timed() const { return env_.stats != nullptr || env_.tracer != nullptr; }
  void RecordKernel(const PlanNode& pn, int64_t start) {
    const int64_t end = NowNanos();
    if (env_.stats) env_.stats->Record(pn.node->op_name(), end - start);
    if (env_.tracer) env_.tracer->Kernel(*pn.node, start, end);
  }
  void Finish();
  Result<std::vector<Tensor>> Wait(double timeout_seconds);

  // First member, so it is destroyed last: the session may go away as soon
  // as it is released, and nothing of the step may be touched after that.
  struct Live {
    explicit Live(StepCounter* c) : counter(c) { counter->Add(); }
    ~Live() { counter->Remove(); }
    StepCounter* counter;
  } live_;
  std::shared_ptr<const Plan> plan_;
  ExecutorEnv env_;
  StepInfo info_;
  std::unique_ptr<StepSlots> slots_;
  StepSlots& root_;  // the root frame's iteration
  std::vector<Tensor> fetched_;
  std::atomic<int32_t> remaining_{0};  // nodes not yet completed (run or skipped)
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;  // guarded by mu_
  Status status_;      // guarded by mu_: the first error
};

void Step::Start(const std::vector<Tensor>& feeds) {
  const Plan& p = *plan_;
  fetched_.resize(p.num_fetches);
  for (const FeedEdge& e : p.feed_edges) {
    (e.dst_node < 0 ? fetched_ : root_.inputs)[e.dst_slot] = feeds[e.feed_index];
  }
  remaining_.store(static_cast<int32_t>(p.nodes.size()), std::memory_order_relaxed);
}

Result<std::vector<Tensor>> Step::Run(const std::vector<Tensor>& feeds, double timeout_seconds) {
  Start(feeds);
  if (plan_->nodes.empty()) return std::move(fetched_);
  if (timeout_seconds > 0) {
    // The caller must stay free to notice the deadline: everything runs on the pool.
    for (int32_t r : plan_->roots) Schedule(r);
  } else {
    ReadyQueue q;
    bool kept = false;
    for (int32_t r : plan_->roots) MakeReady(r, q, kept);
    RunInline(q);
  }
  return Wait(timeout_seconds);
}

void Step::Process(int32_t id, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[id];
  if (cancelled_.load(std::memory_order_relaxed)) {
    Complete(id, false, q);
    return;
  }
  if (pn.async) {
    RunAsync(id);
    return;
  }
  Tensor* outs = root_.outputs.data() + pn.output_start;
  OpKernelContext ctx(&pn.construction, root_.inputs.data() + pn.input_start, pn.num_inputs, outs, pn.num_outputs,
                      env_.resources, &info_);
  const int64_t start = Timed() ? NowNanos() : 0;
  Status s = pn.kernel->Compute(ctx);
  if (Timed()) RecordKernel(pn, start);
  if (s.ok()) s = CheckOutputs(pn, outs);
  if (env_.check_numerics && s.ok()) s = CheckNodeNumerics(pn, outs);
  bool ok = s.ok();
  if (!ok) Fail(pn, std::move(s));
  Complete(id, ok, q);
}

// `done` may run inside ComputeAsync or on a foreign thread: the nodes it
// makes ready go to the pool rather than growing that thread's stack.
void Step::RunAsync(int32_t id) {
  const PlanNode& pn = plan_->nodes[id];
  auto* ctx = new OpKernelContext(&pn.construction, root_.inputs.data() + pn.input_start, pn.num_inputs,
                                  root_.outputs.data() + pn.output_start, pn.num_outputs, env_.resources, &info_);
  const int64_t start = Timed() ? NowNanos() : 0;
  pn.kernel->ComputeAsync(*ctx, [self = shared_from_this(), id, ctx, start](Status s) {
    delete ctx;
    const PlanNode& node = self->plan_->nodes[id];
    if (self->Timed()) self->RecordKernel(node, start);
    if (s.ok()) s = CheckOutputs(node, self->root_.outputs.data() + node.output_start);
    if (self->env_.check_numerics && s.ok()) {
      s = self->CheckNodeNumerics(node, self->root_.outputs.data() + node.output_start);
    }
    bool ok = s.ok();
    if (!ok) self->Fail(node, std::move(s));
    ReadyQueue q;
    self->Complete(id, ok, q);
    while (!q.empty()) self->Schedule(q.pop());
  });
}

void Step::Complete(int32_t id, bool propagate, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[id];
  const Plan& p = *plan_;
  Tensor* outs = root_.outputs.data() + pn.output_start;
  if (propagate) {
    for (int32_t e = pn.edges_begin; e < pn.edges_end; ++e) {
      const PlanEdge& edge = p.edges[e];
      Tensor& dst = edge.dst_node < 0 ? fetched_[edge.dst_slot] : root_.inputs[edge.dst_slot];
      if (edge.last_use) {
        dst = std::move(outs[edge.src_output]);
      } else {
        dst = outs[edge.src_output];
      }
    }
  }
  // Drop this node's inputs and unread outputs now: memory is freed early
  // and later kernels may find buffers they can update in place.
  for (int32_t i = 0; i < pn.num_inputs; ++i) root_.inputs[pn.input_start + i] = Tensor();
  for (int32_t i = 0; i < pn.num_outputs; ++i) outs[i] = Tensor();
  bool kept = false;
  for (int32_t e = pn.edges_begin; e < pn.edges_end; ++e) {
    int32_t dst = p.edges[e].dst_node;
    if (dst >= 0 && root_.pending[dst].fetch_sub(1, std::memory_order_acq_rel) == 1) MakeReady(dst, q, kept);
  }
  for (int32_t c = pn.control_begin; c < pn.control_end; ++c) {
    int32_t dst = p.control_edges[c];
    if (root_.pending[dst].fetch_sub(1, std::memory_order_acq_rel) == 1) MakeReady(dst, q, kept);
  }
  if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
}

void Step::MakeReady(int32_t id, ReadyQueue& q, bool& kept_expensive) {
  const PlanNode& pn = plan_->nodes[id];
  if (!pn.expensive || pn.async || cancelled_.load(std::memory_order_relaxed)) {
    q.push(id);
  } else if (!kept_expensive) {
    kept_expensive = true;
    q.push(id);
  } else {
    Schedule(id);
  }
}

void Step::Schedule(int32_t id) {
  env_.pool->Schedule([self = shared_from_this(), id] {
    ReadyQueue q;
    q.push(id);
    self->RunInline(q);
  });
}

void Step::Fail(const PlanNode& pn, Status status) {
  Status annotated = AnnotateNodeError(std::move(status), *pn.node);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = std::move(annotated);
  }
  cancelled_.store(true, std::memory_order_relaxed);
}

void Step::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

Result<std::vector<Tensor>> Step::Wait(double timeout_seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout_seconds > 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
    if (!cv_.wait_until(lock, deadline, [&] { return done_; })) {
      cancelled_.store(true, std::memory_order_relaxed);
      if (status_.ok()) {
        status_ = Error(Code::kDeadlineExceeded, "run() did not finish within {} s; the step was cancelled",
                        timeout_seconds);
      }
      return status_;
    }
  } else {
    cv_.wait(lock, [&] { return done_; });
  }
  if (!status_.ok()) return status_;
  return std::move(fetched_);
}

}  // namespace

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
                                    const ExecutorEnv& env, const StepInfo& info, double timeout_seconds) {
  auto step = std::make_shared<Step>(std::move(plan), env, info);
  return step->Run(feeds, timeout_seconds);
}

}  // namespace tfg
