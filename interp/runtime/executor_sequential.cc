// Loops of small computations (StaticFrame::sequential) run start to end on
// one thread. Scheduled node by node, a scalar loop spends nearly all its
// time on the frame's lock, atomics and hand-offs between threads; here an
// iteration is a plain walk over ready nodes with the same pending counts,
// dead-tensor rules and kernels as the general executor, and the next
// iteration starts when this one is done. The loop starts once every enter
// has delivered, and its exits reach the parent frame when it ends.
#include "interp/runtime/executor_step.h"
#include "interp/runtime/scalar_loop.h"

namespace tfg {
namespace {

struct ReadyNode {
  int32_t id;
  bool dead;
};

}  // namespace

// Keeps the value an enter delivers; the last one to arrive runs the loop.
int32_t Step::EnterSequential(FrameState* child, const TaggedNode& t, Tensor* outs, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[t.id];
  {
    std::lock_guard<std::mutex> lock(child->mu);
    Tensor value = t.dead ? Tensor() : std::move(outs[0]);
    (pn.constant_enter ? child->invariants : child->entered).emplace_back(t.id, std::move(value));
    if (--child->num_pending_inputs > 0) return 0;
  }
  int32_t queued = 0;
  // Timing, tracing and numeric checks are per kernel: those runs take the
  // kernels' path.
  const bool scalar = child->frame->scalar && !Timed() && !env_.check_numerics;
  if (!scalar || !RunScalar(child, q, queued)) RunSequential(child, q, queued);
  FrameDone(child, q, queued);
  return queued;
}

void Step::RunSequential(FrameState* f, ReadyQueue& q, int32_t& queued) {
  const Plan& p = *plan_;
  const StaticFrame& frame = *f->frame;
  StepSlots* now = f->iterations[0].get();
  auto next_slots = std::make_unique<StepSlots>(frame, true);
  StepSlots* next = next_slots.get();
  std::vector<ReadyNode> ready, next_ready;
  std::vector<std::pair<int32_t, Tensor>> exits;  // the newest iteration's
  auto into = [](std::vector<ReadyNode>& list) {
    return [&list](int32_t dst, bool dead) { list.push_back({dst, dead}); };
  };
  for (auto& [id, value] : f->entered) {
    ActivateIn(now, p.nodes[id], &value, !value.IsInitialized(), into(ready));
  }
  for (bool more = true; more;) {
    for (auto& [id, value] : f->invariants) {
      Tensor copy = value;
      ActivateIn(now, p.nodes[id], &copy, !value.IsInitialized(), into(ready));
    }
    more = false;
    exits.clear();
    while (!ready.empty()) {
      const ReadyNode r = ready.back();
      ready.pop_back();
      const PlanNode& pn = p.nodes[r.id];
      OutputBuffer buffer(pn.num_outputs);
      Tensor* outs = buffer.data();
      Tensor* inputs = now->inputs.data() + pn.input_start;
      const bool live = !r.dead && !cancelled_.load(std::memory_order_relaxed) && Compute(pn, inputs, outs);
      for (int32_t i = 0; i < pn.num_inputs; ++i) inputs[i] = Tensor();
      if (pn.kind == NodeKind::kExit) {
        exits.emplace_back(r.id, live ? std::move(outs[0]) : Tensor());
      } else if (pn.kind == NodeKind::kNextIteration) {
        if (live) ActivateIn(next, pn, outs, false, into(next_ready));
        more = more || live;
      } else {
        ActivateIn(now, pn, outs, !live, into(ready));
      }
    }
    now->Reset(frame);
    std::swap(now, next);
    std::swap(ready, next_ready);
    // Only the watchdog reads it: a long loop is not a hang.
    if (env_.hang_timeout_seconds > 0) completed_.fetch_add(1, std::memory_order_relaxed);
  }
  LeaveSequential(f, exits, q, queued);
}

void Step::LeaveSequential(FrameState* f, std::vector<std::pair<int32_t, Tensor>>& exits, ReadyQueue& q,
                           int32_t& queued) {
  std::lock_guard<std::mutex> lock(f->parent->mu);
  for (auto& [id, value] : exits) {
    if (value.IsInitialized()) {
      queued += Activate(f->parent, f->parent_iter, plan_->nodes[id], &value, false, q);
    } else {
      f->dead_exits.push_back(id);
    }
  }
  f->entered.clear();
  f->invariants.clear();
}

bool Step::RunScalar(FrameState* f, ReadyQueue& q, int32_t& queued) {
  const ScalarLoop& loop = *f->frame->scalar;
  ScalarLoop::Registers r = loop.MakeRegisters();
  for (const auto* values : {&f->entered, &f->invariants}) {
    for (const auto& [id, value] : *values) {
      if (!loop.Load(id, value, r)) return false;
    }
  }
  std::atomic<int64_t>* progress = env_.hang_timeout_seconds > 0 ? &completed_ : nullptr;
  const int32_t refused = loop.Run(r, cancelled_, progress);
  if (refused >= 0) {
    // The kernel on the same inputs gives the error, with the node's line.
    const PlanNode& pn = plan_->nodes[refused];
    std::vector<Tensor> inputs = loop.Inputs(refused, r);
    OutputBuffer outs(pn.num_outputs);
    if (Compute(pn, inputs.data(), outs.data())) {
      Fail(pn, Internal("the scalar loop refused inputs its kernel accepts"));
    }
  }
  const bool dead = cancelled_.load(std::memory_order_relaxed);
  std::vector<std::pair<int32_t, Tensor>> exits;
  for (ScalarLoop::ExitValue& e : loop.Exits(r)) exits.emplace_back(e.node, dead ? Tensor() : std::move(e.value));
  LeaveSequential(f, exits, q, queued);
  return true;
}

}  // namespace tfg
