// Propagation of a finished node's outputs: to its consumers' input slots,
// and through control flow's frames and iterations. The frame rules follow
// TensorFlow's executor (Yu et al., "Dynamic Control Flow in Large-Scale
// Machine Learning", EuroSys 2018):
// - enter delivers into iteration 0 of a child frame (one live frame per
//   iteration of the parent that starts the loop); a constant enter into
//   every iteration, present and future;
// - next_iteration delivers into the next iteration, starting it, unless
//   parallel_iterations are running: then it waits for the oldest to end;
//   a dead next_iteration (the loop predicate was false) stops there;
// - exit delivers a live value into the parent frame at once; dead exits
//   of the last iteration are delivered, dead, when the frame ends;
// - an iteration ends when none of its nodes is ready or running, no loop
//   it started is alive, and the one before it has ended; a frame ends when
//   all its enters arrived and all its iterations ended.
#include "interp/runtime/executor_step.h"

#include <new>

#include "ops/core/memory_budget.h"

namespace tfg {

// Nested loops multiply their live frames (each running iteration starts
// its inner loop), so 30 nested two-iteration loops would want 2**30 at
// once. Past this many (over 100 MB of bookkeeping) the step fails
// with an error naming the loop, instead of running out of memory.
constexpr size_t kMaxLiveFrames = size_t{1} << 17;

bool Step::ForwardControlFlow(const PlanNode& pn, Tensor* inputs, Tensor* outs, Status& status) {
  switch (pn.kind) {
    case NodeKind::kEnter:
    case NodeKind::kExit:
    case NodeKind::kNextIteration: outs[0] = std::move(inputs[0]); return true;
    case NodeKind::kSwitch: {
      const Tensor& pred = inputs[1];
      if (pred.num_elements() != 1) {
        status = InvalidArgument("the predicate must be a single bool, got {}", pred.DebugString());
        return true;
      }
      outs[pred.data<bool>()[0] ? 1 : 0] = std::move(inputs[0]);
      return true;
    }
    case NodeKind::kMerge:
      if (pn.merge_index_used) return false;
      for (int32_t i = 0; i < pn.num_inputs; ++i) {
        if (inputs[i].IsInitialized()) {
          outs[0] = std::move(inputs[i]);
          return true;
        }
      }
      status = Internal("merge ran with no live input");
      return true;
    default: return false;
  }
}

void Step::ClearInputs(const TaggedNode& t) {
  const PlanNode& pn = plan_->nodes[t.id];
  Tensor* inputs = t.slots->inputs.data() + pn.input_start;
  for (int32_t i = 0; i < pn.num_inputs; ++i) inputs[i] = Tensor();
}

int32_t Step::Propagate(const TaggedNode& t, Tensor* outs, ReadyQueue& q) {
  // A failed or cancelled step runs nothing more: it ends when the nodes
  // already running finish.
  if (cancelled_.load(std::memory_order_relaxed)) return 0;
  // The frames' bookkeeping allocates (a loop's frame, its iterations):
  // out of memory there fails the node and cancels the step like a kernel's
  // bad_alloc. Nodes it made ready were not counted yet, so they are
  // dropped with it, and the step ends when the running nodes finish.
  try {
    return plan_->control_flow ? PropagateFrames(t, outs, q) : PropagateSimple(t, outs, q);
  } catch (const std::bad_alloc&) {
    q.clear();
    Fail(plan_->nodes[t.id], OutOfMemoryError());
    return 0;
  }
}

void Step::Fetch(const PlanEdge& e, Tensor* outs, bool dead) {
  if (dead || !outs[e.src_output].IsInitialized()) {
    fetch_dead_[e.dst_slot] = 1;
  } else if (e.last_use) {
    fetched_[e.dst_slot] = std::move(outs[e.src_output]);
  } else {
    fetched_[e.dst_slot] = outs[e.src_output];
  }
}

// No control flow: every node runs once, in the root frame's only
// iteration, and pending counts are atomics (no lock).
int32_t Step::PropagateSimple(const TaggedNode& t, Tensor* outs, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[t.id];
  const Plan& p = *plan_;
  StepSlots* it = t.slots;
  for (int32_t e = pn.edges_begin; e < pn.edges_end; ++e) {
    const PlanEdge& edge = p.edges[e];
    if (edge.dst_node < 0) {
      Fetch(edge, outs, false);
    } else if (edge.last_use) {
      it->inputs[edge.dst_slot] = std::move(outs[edge.src_output]);
    } else {
      it->inputs[edge.dst_slot] = outs[edge.src_output];
    }
  }
  int32_t queued = 0;
  auto decrement = [&](int32_t dst) {
    if (it->pending[p.nodes[dst].local].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      q.push(TaggedNode{dst, false, t.frame, 0, it});
      ++queued;
    }
  };
  for (int32_t e = pn.edges_begin; e < pn.edges_end; ++e) {
    if (p.edges[e].dst_node >= 0) decrement(p.edges[e].dst_node);
  }
  for (int32_t c = pn.control_begin; c < pn.control_end; ++c) decrement(p.control_edges[c]);
  return queued;
}

int32_t Step::PropagateFrames(const TaggedNode& t, Tensor* outs, ReadyQueue& q) {
  const PlanNode& pn = plan_->nodes[t.id];
  FrameState* f = t.frame;
  int32_t queued = 0;
  FrameState* child = nullptr;
  if (pn.kind == NodeKind::kEnter && !(child = ChildFrame(f, t.iter, pn.enter_frame))) {
    Fail(pn, Error(Code::kResourceExhausted, "more than {} loop frames are live at once: nested while_loops start up to "
                               "parallel_iterations iterations each, and each starts its inner loops; pass "
                               "parallel_iterations=1 to the outer loops to run them one after another",
                               kMaxLiveFrames));
    return 0;
  }
  if (pn.kind == NodeKind::kEnter && plan_->frames[pn.enter_frame].sequential) {
    queued += EnterSequential(child, t, outs, q);
  } else if (pn.kind == NodeKind::kEnter) {
    bool child_done = false;
    {
      std::lock_guard<std::mutex> lock(child->mu);
      if (pn.constant_enter) {
        Tensor value = t.dead ? Tensor() : outs[0];
        child->invariants.emplace_back(t.id, value);
        for (int64_t i = child->first_iter; i <= child->iteration_count; ++i) {
          Tensor copy = value;
          queued += Activate(child, i, pn, &copy, t.dead, q);
        }
      } else {
        queued += Activate(child, 0, pn, outs, t.dead, q);
      }
      // The last enter may leave nothing to run (its consumers were pruned).
      if (--child->num_pending_inputs == 0 && child->first_iter == 0) {
        child_done = CleanupIterations(child, 0, q, queued);
      }
    }
    if (child_done) FrameDone(child, q, queued);
  } else if (pn.kind == NodeKind::kExit && !t.dead) {
    std::lock_guard<std::mutex> lock(f->parent->mu);
    queued += Activate(f->parent, f->parent_iter, pn, outs, false, q);
  }
  bool done;
  {
    std::lock_guard<std::mutex> lock(f->mu);
    if (pn.kind == NodeKind::kExit && t.dead && t.iter == f->iteration_count) {
      f->dead_exits.push_back(t.id);
    } else if (pn.kind == NodeKind::kNextIteration && !t.dead) {
      if (t.iter == f->iteration_count && f->num_outstanding_iterations == f->frame->parallel_iterations) {
        f->deferred_next.emplace_back(t.id, std::move(outs[0]));
      } else {
        if (t.iter == f->iteration_count) StartIteration(f, q, queued);
        queued += Activate(f, t.iter + 1, pn, outs, false, q);
      }
    } else if (pn.kind != NodeKind::kEnter && pn.kind != NodeKind::kExit && pn.kind != NodeKind::kNextIteration) {
      queued += Activate(f, t.iter, pn, outs, t.dead, q);
    }
    done = RetireOp(f, t.iter, q, queued);
  }
  if (done) FrameDone(f, q, queued);
  return queued;
}

// Hands `pn`'s outputs (all dead when `dead`; `outs` may then be null) to
// its consumers in iteration `iter` of `f`. Called with f->mu held.
int32_t Step::Activate(FrameState* f, int64_t iter, const PlanNode& pn, Tensor* outs, bool dead, ReadyQueue& q) {
  StepSlots* it = f->Iteration(iter);
  int32_t queued = 0;
  ActivateIn(it, pn, outs, dead, [&](int32_t dst, bool dst_dead) {
    q.push(TaggedNode{dst, dst_dead, f, iter, it});
    ++it->outstanding_ops;
    ++queued;
  });
  return queued;
}

// A merge's pending count is 1 (waiting for a live input) + 2 per control
// edge: it is ready at its first live input once its control edges are
// in, or dead when every data input is dead (or a dead enter feeds it: the
// loop is on a branch of cond that did not run). Later live inputs are
// dropped. `e` is null for a control edge.
bool Step::ActivateMerge(StepSlots* it, const PlanNode& src, const PlanNode& dst, const PlanEdge* e,
                            Tensor* outs, bool dead, bool& dst_dead) {
  std::atomic<int32_t>& pending = it->pending[dst.local];
  int32_t count = pending.load(std::memory_order_relaxed);
  if (e == nullptr) {
    count -= 2;
    pending.store(count, std::memory_order_relaxed);
    dst_dead = it->dead[dst.local] == dst.num_inputs;
    return count == 0 || (count == 1 && dst_dead);
  }
  if (!dead && outs[e->src_output].IsInitialized()) {
    if ((count & 1) == 0) return false;
    it->inputs[e->dst_slot] = e->last_use ? std::move(outs[e->src_output]) : outs[e->src_output];
    pending.store(count - 1, std::memory_order_relaxed);
    return count - 1 == 0;
  }
  const int32_t dead_inputs = ++it->dead[dst.local];
  dst_dead = dead_inputs == dst.num_inputs || src.kind == NodeKind::kEnter;
  return count == 1 && dst_dead;
}

// Any other node waits for all its inputs; one dead input makes it dead,
// and so does a control edge from a dead node (but not a control_trigger).
bool Step::ActivateOp(StepSlots* it, const PlanNode& dst, const PlanEdge* e, Tensor* outs, bool dead,
                         bool& dst_dead) {
  if (e != nullptr && !dead && outs[e->src_output].IsInitialized()) {
    it->inputs[e->dst_slot] = e->last_use ? std::move(outs[e->src_output]) : outs[e->src_output];
  } else if (e != nullptr || dead) {
    ++it->dead[dst.local];
  }
  // The frame's lock is held: a plain decrement, no atomic read-modify-write.
  std::atomic<int32_t>& pending = it->pending[dst.local];
  const int32_t left = pending.load(std::memory_order_relaxed) - 1;
  pending.store(left, std::memory_order_relaxed);
  const bool is_ready = left == 0;
  dst_dead = it->dead[dst.local] > 0 && dst.kind != NodeKind::kControlTrigger;
  return is_ready;
}

FrameState* Step::ChildFrame(FrameState* parent, int64_t iter, int32_t static_id) {
  FrameState* child;
  bool created = false;
  {
    std::lock_guard<std::mutex> lock(frames_mu_);
    std::unique_ptr<FrameState>& slot = frames_[{parent, iter, static_id}];
    if (!slot && frames_.size() > kMaxLiveFrames) {
      frames_.erase({parent, iter, static_id});
      return nullptr;
    }
    if (!slot) {
      slot = std::make_unique<FrameState>(&plan_->frames[static_id], static_id, parent, iter);
      slot->iterations.push_back(std::make_unique<StepSlots>(*slot->frame, true));
      created = true;
    }
    child = slot.get();
  }
  // The parent iteration cannot end meanwhile: the enter creating the
  // child is still running in it.
  if (created) {
    std::lock_guard<std::mutex> lock(parent->mu);
    ++parent->Iteration(iter)->outstanding_frames;
  }
  return child;
}

// Starts the next iteration of `f` and gives it the loop invariants.
// Called with f->mu held.
void Step::StartIteration(FrameState* f, ReadyQueue& q, int32_t& queued) {
  ++f->iteration_count;
  if (f->free_slots.empty()) {
    f->iterations.push_back(std::make_unique<StepSlots>(*f->frame, true));
  } else {
    f->iterations.push_back(std::move(f->free_slots.back()));
    f->free_slots.pop_back();
  }
  ++f->num_outstanding_iterations;
  f->dead_exits.clear();
  for (auto& [id, value] : f->invariants) {
    Tensor copy = value;
    queued += Activate(f, f->iteration_count, plan_->nodes[id], &copy, !value.IsInitialized(), q);
  }
}

bool Step::IterationDone(FrameState* f, int64_t iter) {
  StepSlots* it = f->Iteration(iter);
  if (it == nullptr || it->outstanding_ops != 0 || it->outstanding_frames != 0) return false;
  return iter == 0 ? f->num_pending_inputs == 0 : f->Iteration(iter - 1) == nullptr;
}

// One node of iteration `iter` of `f` finished. Returns whether `f` ended.
// Called with f->mu held; the root frame never ends this way.
bool Step::RetireOp(FrameState* f, int64_t iter, ReadyQueue& q, int32_t& queued) {
  StepSlots* it = f->Iteration(iter);
  if (--it->outstanding_ops != 0 || f == &root_) return false;
  return CleanupIterations(f, iter, q, queued);
}

// Drops the iterations from `iter` on that have ended, oldest first,
// starting a deferred iteration for each. Returns whether `f` ended.
// Called with f->mu held.
bool Step::CleanupIterations(FrameState* f, int64_t iter, ReadyQueue& q, int32_t& queued) {
  for (int64_t i = iter; i <= f->iteration_count && IterationDone(f, i); ++i) {
    f->iterations.front()->Reset(*f->frame);
    f->free_slots.push_back(std::move(f->iterations.front()));
    f->iterations.erase(f->iterations.begin());
    ++f->first_iter;
    --f->num_outstanding_iterations;
    if (f->deferred_next.empty()) continue;
    StartIteration(f, q, queued);
    for (auto& [id, value] : f->deferred_next) {
      queued += Activate(f, f->iteration_count, plan_->nodes[id], &value, false, q);
    }
    f->deferred_next.clear();
  }
  return f->num_pending_inputs == 0 && f->num_outstanding_iterations == 0;
}

// `f` ended: its dead exits go to the parent, dead, and the parent
// iteration may end in turn.
void Step::FrameDone(FrameState* f, ReadyQueue& q, int32_t& queued) {
  FrameState* parent = f->parent;
  const int64_t parent_iter = f->parent_iter;
  bool parent_done = false;
  {
    std::lock_guard<std::mutex> lock(parent->mu);
    for (int32_t id : f->dead_exits) queued += Activate(parent, parent_iter, plan_->nodes[id], nullptr, true, q);
    StepSlots* it = parent->Iteration(parent_iter);
    --it->outstanding_frames;
    if (parent != &root_ && it->outstanding_ops == 0) parent_done = CleanupIterations(parent, parent_iter, q, queued);
  }
  {
    std::lock_guard<std::mutex> lock(frames_mu_);
    frames_.erase({parent, parent_iter, f->static_id});
  }
  if (parent_done) FrameDone(parent, q, queued);
}

}  // namespace tfg
