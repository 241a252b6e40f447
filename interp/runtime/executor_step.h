// One step of the executor (interp/runtime/executor.h): the state of a run of a
// plan. Kernel running, waiting and the watchdog are in executor.cc; the
// propagation of outputs through frames and iterations (control flow, white
// paper §4.4, after TensorFlow's executor) is in executor_frames.cc.
//
// Without control flow every node runs once, in the root frame's only
// iteration, and propagation is lock-free (atomic pending counts). With it,
// each live frame has a lock guarding its iterations' counts, and a tensor
// may be dead: a node with a dead input is not run, its outputs are dead,
// except a merge, which waits for its first live input.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "interp/runtime/executor.h"
#include "ops/core/cancellation.h"

namespace tfg {

struct FrameState;

// Outputs of one kernel run: constructed in place for the usual few (a
// loop runs millions of small nodes; each tensor built costs).
class OutputBuffer {
 public:
  explicit OutputBuffer(int32_t n) : n_(n) {
    if (n_ > kInline) {
      heap_.resize(n_);
    } else {
      for (int32_t i = 0; i < n_; ++i) new (&inline_[i]) Tensor();
    }
  }
  ~OutputBuffer() {
    if (n_ <= kInline) {
      for (int32_t i = 0; i < n_; ++i) reinterpret_cast<Tensor*>(&inline_[i])->~Tensor();
    }
  }
  OutputBuffer(const OutputBuffer&) = delete;
  OutputBuffer& operator=(const OutputBuffer&) = delete;
  Tensor* data() { return n_ > kInline ? heap_.data() : reinterpret_cast<Tensor*>(&inline_[0]); }

 private:
  static constexpr int32_t kInline = 4;
  int32_t n_;
  struct alignas(Tensor) Slot {
    unsigned char bytes[sizeof(Tensor)];
  };
  std::array<Slot, kInline> inline_;
  std::vector<Tensor> heap_;
};


// A node to run in one iteration of one live frame. `dead`: it had a dead
// input, so it only passes deadness on.
// Trivial (no member initializers): a ReadyQueue's inline array of them is
// on the stack of every node run, and must cost nothing to create.
struct TaggedNode {
  int32_t id;
  bool dead;
  FrameState* frame;
  int64_t iter;
  StepSlots* slots;  // the iteration's state: alive while the node is
};

// A LIFO of ready nodes: a small inline array first, so the common case
// allocates nothing.
class ReadyQueue {
 public:
  bool empty() const { return size_ == 0 && overflow_.empty(); }
  void push(const TaggedNode& t) {
    if (overflow_.empty() && size_ < inline_.size()) {
      inline_[size_++] = t;
    } else {
      overflow_.push_back(t);
    }
  }
  TaggedNode pop() {
    if (!overflow_.empty()) {
      TaggedNode t = overflow_.back();
      overflow_.pop_back();
      return t;
    }
    return inline_[--size_];
  }
  void clear() {
    size_ = 0;
    overflow_.clear();
  }

 private:
  std::array<TaggedNode, 16> inline_;
  size_t size_ = 0;
  std::vector<TaggedNode> overflow_;
};

// One live instance of a static frame: the root frame, or a loop started
// by one iteration of its parent frame. Iterations are kept oldest first;
// at most StaticFrame::parallel_iterations run at once.
struct FrameState {
  FrameState(const StaticFrame* f, int32_t id, FrameState* parent_frame, int64_t parent_iteration)
      : frame(f), static_id(id), parent(parent_frame), parent_iter(parent_iteration),
        num_pending_inputs(f->num_enters) {}

  StepSlots* Iteration(int64_t i) {
    if (i < first_iter || i >= first_iter + static_cast<int64_t>(iterations.size())) return nullptr;
    return iterations[i - first_iter].get();
  }

  const StaticFrame* frame;
  int32_t static_id;
  FrameState* parent;
  int64_t parent_iter;
  std::mutex mu;
  // Everything below is guarded by mu (the root frame's too, with control flow).
  std::vector<std::unique_ptr<StepSlots>> iterations;  // [first_iter, iteration_count]
  int64_t first_iter = 0;
  int64_t iteration_count = 0;          // the newest iteration started
  int32_t num_outstanding_iterations = 1;
  int32_t num_pending_inputs;           // enters not yet arrived
  // Loop invariants (constant enters) delivered so far: each new iteration gets them.
  std::vector<std::pair<int32_t, Tensor>> invariants;
  // Values for an iteration not yet started (parallel_iterations reached).
  std::vector<std::pair<int32_t, Tensor>> deferred_next;
  // Exits reached dead in the newest iteration: dead in the parent once the frame ends.
  std::vector<int32_t> dead_exits;
  // Sequential frames: the loop variables' values from their enters.
  std::vector<std::pair<int32_t, Tensor>> entered;
  // Iteration states of ended iterations, reset for the next ones: a long
  // loop allocates only as many as run at once.
  std::vector<std::unique_ptr<StepSlots>> free_slots;
};

class Step : public std::enable_shared_from_this<Step> {
 public:
  Step(std::shared_ptr<const Plan> plan, const ExecutorEnv& env, const StepInfo& info);
  ~Step();

  Result<std::vector<Tensor>> Run(const std::vector<Tensor>& feeds, double timeout_seconds,
                                  CancellationManager* external);

 private:
  // ---- executor.cc: running kernels
  void Start(const std::vector<Tensor>& feeds);
  void RunInline(ReadyQueue& q) {
    while (!q.empty()) Process(q.pop(), q);
  }
  void Process(const TaggedNode& t, ReadyQueue& q);
  // Runs `pn` on `inputs` (a kernel, or a switch/merge/... forwarding);
  // false when it failed, which cancels the step.
  bool Compute(const PlanNode& pn, Tensor* inputs, Tensor* outs);
  void RunAsync(const TaggedNode& t);
  void MakeReady(const TaggedNode& t, ReadyQueue& q, bool& kept_expensive);
  void ScheduleAll(ReadyQueue& q);
  void Schedule(const TaggedNode& t);
  void Fail(const PlanNode& pn, Status status);
  void Cancel(Status status);
  Status CheckNodeOutputs(const PlanNode& pn, Tensor* outs) const;
  bool Timed() const { return env_.stats != nullptr || env_.tracer != nullptr; }
  // `waited`: an asynchronous kernel, timed from its start to its
  // completion (which holds no thread in between).
  void RecordKernel(const PlanNode& pn, int64_t start, bool waited = false);
  void Retire();
  void Finish();
  Result<std::vector<Tensor>> Wait(double timeout_seconds);
  std::string HangReport();

  // ---- executor_frames.cc: propagation
  // Hands a finished node's outputs (dead when `t.dead` or unset) to its
  // consumers, queues those now ready, and retires the node from its
  // iteration. Returns how many nodes it queued.
  int32_t Propagate(const TaggedNode& t, Tensor* outs, ReadyQueue& q);
  int32_t PropagateSimple(const TaggedNode& t, Tensor* outs, ReadyQueue& q);
  int32_t PropagateFrames(const TaggedNode& t, Tensor* outs, ReadyQueue& q);
  void Fetch(const PlanEdge& e, Tensor* outs, bool dead);
  int32_t Activate(FrameState* f, int64_t iter, const PlanNode& pn, Tensor* outs, bool dead, ReadyQueue& q);
  // The same into the slots `it`, calling ready(node, dead) for each node
  // it makes ready.
  template <typename OnReady>
  void ActivateIn(StepSlots* it, const PlanNode& pn, Tensor* outs, bool dead, OnReady&& ready);
  bool ActivateMerge(StepSlots* it, const PlanNode& src, const PlanNode& dst, const PlanEdge* e, Tensor* outs,
                        bool dead, bool& dst_dead);
  bool ActivateOp(StepSlots* it, const PlanNode& dst, const PlanEdge* e, Tensor* outs, bool dead, bool& dst_dead);
  FrameState* ChildFrame(FrameState* parent, int64_t iter, int32_t static_id);
  void StartIteration(FrameState* f, ReadyQueue& q, int32_t& queued);
  bool IterationDone(FrameState* f, int64_t iter);
  bool RetireOp(FrameState* f, int64_t iter, ReadyQueue& q, int32_t& queued);
  bool CleanupIterations(FrameState* f, int64_t iter, ReadyQueue& q, int32_t& queued);
  void FrameDone(FrameState* f, ReadyQueue& q, int32_t& queued);
  void ClearInputs(const TaggedNode& t);
  // Switch and merge without a kernel call: false when the general kernel
  // must run (a merge whose value_index is used).
  bool ForwardControlFlow(const PlanNode& pn, Tensor* inputs, Tensor* outs, Status& status);

  // ---- executor_sequential.cc: loops run on one thread
  int32_t EnterSequential(FrameState* child, const TaggedNode& t, Tensor* outs, ReadyQueue& q);
  void RunSequential(FrameState* f, ReadyQueue& q, int32_t& queued);
  // The loop as a register machine (StaticFrame::scalar); false, having
  // done nothing, when an entered value does not fit it.
  bool RunScalar(FrameState* f, ReadyQueue& q, int32_t& queued);
  // Live exits to the parent, dead ones kept for when the frame is done.
  void LeaveSequential(FrameState* f, std::vector<std::pair<int32_t, Tensor>>& exits, ReadyQueue& q,
                       int32_t& queued);

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
  CancellationManager cancellation_;
  FrameState root_;
  std::vector<Tensor> fetched_;
  std::vector<char> fetch_dead_;
  // Nodes ready or running: the step is over when none are left.
  std::atomic<int64_t> outstanding_{0};
  std::atomic<int64_t> completed_{0};  // for the watchdog: has anything run lately?
  std::atomic<bool> cancelled_{false};
  std::mutex frames_mu_;
  std::map<std::tuple<FrameState*, int64_t, int32_t>, std::unique_ptr<FrameState>> frames_;  // guarded by frames_mu_
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;  // guarded by mu_
  Status status_;      // guarded by mu_: the first error
  // Asynchronous kernels that have not finished, for the watchdog.
  std::map<OpKernelContext*, int32_t> waiting_;  // guarded by mu_
};

template <typename OnReady>
void Step::ActivateIn(StepSlots* it, const PlanNode& pn, Tensor* outs, bool dead, OnReady&& ready) {
  const Plan& p = *plan_;
  for (int32_t e = pn.edges_begin; e < pn.edges_end; ++e) {
    const PlanEdge& edge = p.edges[e];
    if (edge.dst_node < 0) {
      Fetch(edge, outs, dead);
      continue;
    }
    const PlanNode& dst = p.nodes[edge.dst_node];
    bool dst_dead = false;
    bool is_ready = dst.kind == NodeKind::kMerge ? ActivateMerge(it, pn, dst, &edge, outs, dead, dst_dead)
                                                 : ActivateOp(it, dst, &edge, outs, dead, dst_dead);
    if (is_ready) ready(edge.dst_node, dst_dead);
  }
  for (int32_t c = pn.control_begin; c < pn.control_end; ++c) {
    const PlanNode& dst = p.nodes[p.control_edges[c]];
    bool dst_dead = false;
    bool is_ready = dst.kind == NodeKind::kMerge ? ActivateMerge(it, pn, dst, nullptr, outs, dead, dst_dead)
                                                 : ActivateOp(it, dst, nullptr, outs, dead, dst_dead);
    if (is_ready) ready(p.control_edges[c], dst_dead);
  }
}

}  // namespace tfg
