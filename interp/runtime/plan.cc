#include "interp/runtime/plan.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "ops/core/device.h"
#include "interp/runtime/run_signature.h"
#include "interp/runtime/scalar_loop.h"
#include "ops/core/control_flow.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class PlanBuilder {
 public:
  PlanBuilder(const Graph& g, const FeedIndex& feeds, Device* device)
      : g_(g), feeds_(feeds), device_(device), plan_(std::make_shared<Plan>()) {}

  Result<std::shared_ptr<Plan>> Build(const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
    plan_->graph_edits = g_.edits();
    plan_->num_fetches = static_cast<int32_t>(fetches.size());
    Prune(fetches, targets);
    TFG_RETURN_IF_ERROR(Order());
    TFG_RETURN_IF_ERROR(AssignFrames());
    Layout();
    TFG_RETURN_IF_ERROR(Wire(fetches));
    TFG_RETURN_IF_ERROR(CreateKernels());
    MarkSequentialFrames();
    return plan_;
  }

 private:
  // Marks what the fetches and targets need, walking data and control
  // inputs backwards and stopping at fed outputs.
  void Prune(const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
    needed_.assign(g_.num_nodes(), 0);
    std::vector<const Node*> stack;
    auto need = [&](const Node* n) {
      if (!needed_[n->id()]) {
        needed_[n->id()] = 1;
        stack.push_back(n);
      }
    };
    for (const Output& f : fetches) {
      if (feeds_.Find(f) < 0) need(f.node);
    }
    for (const Node* t : targets) need(t);
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      for (const Output& in : n->inputs()) {
        if (feeds_.Find(in) < 0) need(in.node);
      }
      for (const Node* c : n->control_inputs()) {
        if (!feeds_.AnyFed(c)) need(c);
      }
    }
  }

  // Kahn's algorithm over the needed nodes, ties broken by node id so
  // plans are deterministic; a loop's back edges are left out, since they
  // close its cycle.
  Status Order() {
    std::vector<const Node*> nodes;
    std::vector<int32_t> local(g_.num_nodes(), -1);
    for (int id = 0; id < g_.num_nodes(); ++id) {
      if (!needed_[id]) continue;
      local[id] = static_cast<int32_t>(nodes.size());
      nodes.push_back(g_.node(id));
    }
    std::vector<int32_t> indegree(nodes.size(), 0);
    std::vector<std::vector<int32_t>> consumers(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const Output& in : nodes[i]->inputs()) {
        if (feeds_.Find(in) >= 0 || IsLoopBackEdge(*nodes[i], in)) continue;
        consumers[local[in.node->id()]].push_back(static_cast<int32_t>(i));
        ++indegree[i];
      }
      for (const Node* c : nodes[i]->control_inputs()) {
        if (local[c->id()] < 0) continue;
        consumers[local[c->id()]].push_back(static_cast<int32_t>(i));
        ++indegree[i];
      }
    }
    std::deque<int32_t> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (indegree[i] == 0) ready.push_back(static_cast<int32_t>(i));
    }
    while (!ready.empty()) {
      int32_t i = ready.front();
      ready.pop_front();
      order_.push_back(nodes[i]);
      for (int32_t c : consumers[i]) {
        if (--indegree[c] == 0) ready.push_back(c);
      }
    }
    if (order_.size() == nodes.size()) return Status::OK();
    return CycleError(nodes, indegree);
  }

  // Nodes left with pending inputs after the sort lie on or behind a cycle.
  static Status CycleError(const std::vector<const Node*>& nodes, const std::vector<int32_t>& indegree) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (indegree[i] == 0) continue;
      return Status(Code::kInvalidArgument,
                    fmt::format("the graph has a cycle through {} (check control dependencies)", DescribeNode(*nodes[i])),
                    nodes[i]->span());
    }
    return Internal("topological sort lost nodes");
  }

  // Which frame each node runs in, in topological order: an enter's
  // consumers are in the frame it enters, an exit's in the parent of the
  // frame it leaves, anything else in its inputs' frame.
  Status AssignFrames() {
    plan_->frames.resize(1);
    plan_->frames[0].name = "(root)";
    frame_of_.assign(g_.num_nodes(), 0);
    entered_.assign(g_.num_nodes(), -1);
    for (const Node* n : order_) {
      const Node* src = nullptr;
      for (const Output& in : n->inputs()) {
        if (feeds_.Find(in) < 0 && !IsLoopBackEdge(*n, in)) {
          src = in.node;
          break;
        }
      }
      if (src == nullptr) {
        for (const Node* c : n->control_inputs()) {
          if (needed_[c->id()] && !feeds_.AnyFed(c)) {
            src = c;
            break;
          }
        }
      }
      if (src != nullptr) {
        int32_t f = frame_of_[src->id()];
        if (IsEnter(*src)) {
          f = entered_[src->id()];
        } else if (IsExit(*src)) {
          if (f == 0) return Status(Code::kInvalidArgument, "exit outside a loop", src->span());
          f = plan_->frames[f].parent;
        }
        frame_of_[n->id()] = f;
      }
      if (IsEnter(*n)) {
        entered_[n->id()] = ChildFrame(frame_of_[n->id()], *n);
        ++plan_->frames[entered_[n->id()]].num_enters;
      }
    }
    return Status::OK();
  }

  int32_t ChildFrame(int32_t parent, const Node& enter) {
    const std::string* name = enter.attr<std::string>(while_loop::kFrameNameAttr);
    for (size_t i = 1; i < plan_->frames.size(); ++i) {
      if (plan_->frames[i].parent == parent && plan_->frames[i].name == *name) return static_cast<int32_t>(i);
    }
    StaticFrame f;
    f.name = *name;
    f.parent = parent;
    const int64_t* parallel = enter.attr<int64_t>(while_loop::kParallelIterationsAttr);
    f.parallel_iterations = parallel && *parallel > 0 ? static_cast<int32_t>(*parallel) : 1;
    plan_->frames.push_back(std::move(f));
    return static_cast<int32_t>(plan_->frames.size() - 1);
  }

  void Layout() {
    plan_index_.assign(g_.num_nodes(), -1);
    plan_->nodes.resize(order_.size());
    for (size_t i = 0; i < order_.size(); ++i) {
      PlanNode& pn = plan_->nodes[i];
      pn.node = order_[i];
      pn.frame = frame_of_[pn.node->id()];
      StaticFrame& f = plan_->frames[pn.frame];
      pn.local = f.num_nodes++;
      pn.input_start = f.num_input_slots;
      pn.num_inputs = static_cast<int32_t>(pn.node->inputs().size());
      pn.num_outputs = pn.node->num_outputs();
      f.num_input_slots += pn.num_inputs;
      plan_->max_outputs = std::max(plan_->max_outputs, pn.num_outputs);
      plan_index_[pn.node->id()] = static_cast<int32_t>(i);
    }
  }

  Status Wire(const std::vector<Output>& fetches);
  void SetKinds();
  void Flatten(std::vector<std::vector<PlanEdge>>& out, std::vector<std::vector<int32_t>>& control);
  Status CreateKernels();
  void MarkSequentialFrames();

  const Graph& g_;
  const FeedIndex& feeds_;
  Device* device_;
  std::shared_ptr<Plan> plan_;
  std::vector<char> needed_;
  std::vector<const Node*> order_;
  std::vector<int32_t> plan_index_;  // by node id; -1: not in the plan
  std::vector<int32_t> frame_of_;    // by node id
  std::vector<int32_t> entered_;     // by node id: the frame an enter enters
};

Status PlanBuilder::Wire(const std::vector<Output>& fetches) {
  SetKinds();
  const size_t n = plan_->nodes.size();
  std::vector<std::vector<PlanEdge>> out(n);
  std::vector<std::vector<int32_t>> control(n);
  for (size_t i = 0; i < n; ++i) {
    PlanNode& pn = plan_->nodes[i];
    const auto& inputs = pn.node->inputs();
    for (int32_t k = 0; k < pn.num_inputs; ++k) {
      int32_t slot = pn.input_start + k;
      int feed = feeds_.Find(inputs[k]);
      if (feed >= 0) {
        if (pn.frame != 0) {
          return Status(Code::kInvalidArgument,
                        fmt::format("cannot feed {}: {} reads it inside a while_loop", inputs[k].name(),
                                    DescribeNode(*pn.node)),
                        pn.node->span());
        }
        plan_->feed_edges.push_back({feed, static_cast<int32_t>(i), slot});
        continue;
      }
      PlanNode& src = plan_->nodes[plan_index_[inputs[k].node->id()]];
      if (src.kind == NodeKind::kMerge && inputs[k].index == 1) src.merge_index_used = true;
      out[plan_index_[inputs[k].node->id()]].push_back({inputs[k].index, static_cast<int32_t>(i), slot, false});
      if (pn.kind != NodeKind::kMerge) ++pn.initial_pending;
    }
    for (const Node* c : pn.node->control_inputs()) {
      if (plan_index_[c->id()] < 0) continue;
      control[plan_index_[c->id()]].push_back(static_cast<int32_t>(i));
      pn.initial_pending += pn.kind == NodeKind::kMerge ? 2 : 1;
    }
    // A merge waits for its first live input (bit 0), not for all of them.
    if (pn.kind == NodeKind::kMerge) pn.initial_pending += 1;
  }
  for (size_t j = 0; j < fetches.size(); ++j) {
    int feed = feeds_.Find(fetches[j]);
    if (feed >= 0) {
      plan_->feed_edges.push_back({feed, -1, static_cast<int32_t>(j)});
      continue;
    }
    int32_t src = plan_index_[fetches[j].node->id()];
    const PlanNode& producer = plan_->nodes[src];
    const int32_t value_frame = producer.kind == NodeKind::kExit ? plan_->frames[producer.frame].parent : producer.frame;
    if (value_frame != 0) {
      return Status(Code::kInvalidArgument,
                    fmt::format("cannot fetch {}: it is computed inside a while_loop (fetch the loop's results)",
                                fetches[j].name()),
                    fetches[j].node->span());
    }
    if (producer.kind == NodeKind::kMerge && fetches[j].index == 1) plan_->nodes[src].merge_index_used = true;
    out[src].push_back({fetches[j].index, -1, static_cast<int32_t>(j), false});
  }
  Flatten(out, control);
  for (const PlanNode& pn : plan_->nodes) {
    plan_->frames[pn.frame].initial_pending.push_back(pn.initial_pending);
    if (pn.initial_pending == 0 && pn.frame != 0) {
      return Status(Code::kInternal, fmt::format("{} runs in a loop but has no inputs", DescribeNode(*pn.node)),
                    pn.node->span());
    }
  }
  return Status::OK();
}

void PlanBuilder::SetKinds() {
  static const std::pair<const char*, NodeKind> kKinds[] = {{kSwitchOp, NodeKind::kSwitch},
                                                            {kMergeOp, NodeKind::kMerge},
                                                            {kEnterOp, NodeKind::kEnter},
                                                            {kExitOp, NodeKind::kExit},
                                                            {kNextIterationOp, NodeKind::kNextIteration},
                                                            {kControlTriggerOp, NodeKind::kControlTrigger},
                                                            // runs on a dead input to pass the deadness on
                                                            {"_send", NodeKind::kControlTrigger}};
  for (PlanNode& pn : plan_->nodes) {
    for (const auto& [op, kind] : kKinds) {
      if (pn.node->op_name() == op) pn.kind = kind;
    }
    if (pn.kind != NodeKind::kOp) plan_->control_flow = true;
    if (pn.node->op_name() == "_recv") {  // a dead transfer arrives as a dead output
      pn.outputs_may_be_dead = true;
      plan_->control_flow = true;
    }
    if (pn.kind == NodeKind::kEnter) {
      pn.enter_frame = entered_[pn.node->id()];
      pn.constant_enter = IsConstantEnter(*pn.node);
    }
  }
}

// Concatenates the per-node edge lists, grouped by output so the last
// reader of each output can take the tensor instead of copying it.
void PlanBuilder::Flatten(std::vector<std::vector<PlanEdge>>& out, std::vector<std::vector<int32_t>>& control) {
  for (size_t i = 0; i < plan_->nodes.size(); ++i) {
    PlanNode& pn = plan_->nodes[i];
    auto& edges = out[i];
    std::stable_sort(edges.begin(), edges.end(),
                     [](const PlanEdge& a, const PlanEdge& b) { return a.src_output < b.src_output; });
    for (size_t e = 0; e < edges.size(); ++e) {
      edges[e].last_use = e + 1 == edges.size() || edges[e + 1].src_output != edges[e].src_output;
    }
    pn.edges_begin = static_cast<int32_t>(plan_->edges.size());
    plan_->edges.insert(plan_->edges.end(), edges.begin(), edges.end());
    pn.edges_end = static_cast<int32_t>(plan_->edges.size());
    pn.control_begin = static_cast<int32_t>(plan_->control_edges.size());
    plan_->control_edges.insert(plan_->control_edges.end(), control[i].begin(), control[i].end());
    pn.control_end = static_cast<int32_t>(plan_->control_edges.size());
    if (pn.initial_pending == 0) plan_->roots.push_back(static_cast<int32_t>(i));
  }
}

Status PlanBuilder::CreateKernels() {
  for (PlanNode& pn : plan_->nodes) {
    const Node& n = *pn.node;
    auto def = OpRegistry::Global().FindKernel(n.op(), device_->type(), n.attrs());
    if (!def.ok()) return AnnotateNodeError(def.status(), n);
    KernelConstruction& c = pn.construction;
    c.op = &n.op();
    c.attrs = &n.attrs();
    c.input_types = n.input_types();
    c.output_types = n.output_types();
    c.node_name = n.name();
    c.span = n.span();
    c.device = device_;
    auto kernel = (*def)->factory(c);
    if (!kernel.ok()) return AnnotateNodeError(kernel.status(), n);
    pn.kernel = std::move(*kernel);
    pn.expensive = pn.kernel->IsExpensive();
    pn.async = pn.kernel->IsAsync();
    plan_->has_async = plan_->has_async || pn.async;
  }
  return Status::OK();
}

// A loop of small computations runs several times faster on one thread,
// without a lock or an atomic per node, than scheduled node by node, and
// running its iterations in parallel would gain nothing. Tensors of up to
// this many elements count as small.
constexpr int64_t kSmallElements = 4096;

bool SmallShape(const PartialShape& s) { return s.fully_defined() && s.num_elements() <= kSmallElements; }

bool CheapInLoop(const PlanNode& pn) {
  if (pn.async || pn.kind == NodeKind::kEnter || pn.merge_index_used) return false;
  if (pn.kind != NodeKind::kOp || !pn.expensive) return true;
  for (const Output& in : pn.node->inputs()) {
    if (!SmallShape(in.shape())) return false;
  }
  for (const PartialShape& s : pn.node->output_shapes()) {
    if (!SmallShape(s)) return false;
  }
  return true;
}

void PlanBuilder::MarkSequentialFrames() {
  std::vector<char> cheap(plan_->frames.size(), 1);
  for (const PlanNode& pn : plan_->nodes) cheap[pn.frame] = cheap[pn.frame] && CheapInLoop(pn);
  for (size_t f = 1; f < plan_->frames.size(); ++f) {
    StaticFrame& frame = plan_->frames[f];
    frame.sequential = cheap[f];
    if (frame.sequential) frame.scalar = ScalarLoop::Compile(*plan_, static_cast<int32_t>(f));
  }
}

}  // namespace

StepSlots::StepSlots(const StaticFrame& frame, bool control_flow)
    : pending(std::make_unique<std::atomic<int32_t>[]>(frame.num_nodes)),
      dead(control_flow ? std::make_unique<int32_t[]>(frame.num_nodes) : nullptr),
      inputs(frame.num_input_slots) {
  Reset(frame);
}

void StepSlots::Reset(const StaticFrame& frame) {
  for (int32_t i = 0; i < frame.num_nodes; ++i) {
    pending[i].store(frame.initial_pending[i], std::memory_order_relaxed);
  }
  if (dead) std::fill(dead.get(), dead.get() + frame.num_nodes, 0);
  outstanding_ops = 0;
  outstanding_frames = 0;
}

// Enough for the steps of a few host threads running one signature at once.
constexpr size_t kMaxFreeSlots = 4;

std::unique_ptr<StepSlots> Plan::AcquireSlots() const {
  {
    std::lock_guard<std::mutex> lock(slots_mu_);
    if (!free_slots_.empty()) {
      std::unique_ptr<StepSlots> slots = std::move(free_slots_.back());
      free_slots_.pop_back();
      slots->Reset(frames[0]);
      return slots;
    }
  }
  return std::make_unique<StepSlots>(frames[0], control_flow);
}

void Plan::ReleaseSlots(std::unique_ptr<StepSlots> slots) const {
  std::lock_guard<std::mutex> lock(slots_mu_);
  if (free_slots_.size() < kMaxFreeSlots) free_slots_.push_back(std::move(slots));
}

Status AnnotateNodeError(Status status, const Node& node) {
  std::string who = DescribeNode(node);
  if (status.message().rfind(who, 0) != 0) status.Prepend(who + ": ");
  status.WithSpan(node.span());
  return status;
}

Result<std::shared_ptr<Plan>> BuildPlan(const Graph& graph, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                        Device* device) {
  FeedIndex feed_index;
  TFG_RETURN_IF_ERROR(feed_index.Init(graph, feeds));
  for (const Output& f : fetches) TFG_RETURN_IF_ERROR(CheckRunOutput(graph, f, "fetch"));
  for (const Node* t : targets) {
    if (!InGraph(graph, t)) return InvalidArgument("a run target refers to a node that is not in this graph");
  }
  return PlanBuilder(graph, feed_index, device).Build(fetches, targets);
}

}  // namespace tfg
