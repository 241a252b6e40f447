#include "interp/plan.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "devices/device.h"
#include "ops/framework/op_registry.h"

namespace tfg {
namespace {

std::string Describe(const Node& n) { return fmt::format("{} '{}'", n.op_name(), n.name()); }

bool InGraph(const Graph& g, const Node* n) {
  return n != nullptr && n->id() >= 0 && n->id() < g.num_nodes() && g.node(n->id()) == n;
}

Status CheckOutput(const Graph& g, const Output& o, const char* what) {
  if (!InGraph(g, o.node)) return InvalidArgument("a {} refers to a node that is not in this graph", what);
  if (o.index >= 0 && o.index < o.node->num_outputs()) return Status::OK();
  Status s = o.node->num_outputs() == 0
                 ? InvalidArgument("cannot {} {}: it has no outputs (run it as a target instead)", what,
                                   Describe(*o.node))
                 : InvalidArgument("cannot {} output {} of {}: it has {} output(s)", what, o.index, Describe(*o.node),
                                   o.node->num_outputs());
  return s.WithSpan(o.node->span());
}

// Which outputs are fed: per node id, the feed index of each output (-1).
class FeedIndex {
 public:
  Status Init(const Graph& g, const std::vector<Output>& feeds) {
    for (size_t i = 0; i < feeds.size(); ++i) {
      TFG_RETURN_IF_ERROR(CheckOutput(g, feeds[i], "feed"));
      auto& slots = by_node_[feeds[i].node->id()];
      slots.resize(feeds[i].node->num_outputs(), -1);
      if (slots[feeds[i].index] >= 0) {
        return InvalidArgument("{} is fed more than once", Describe(*feeds[i].node));
      }
      slots[feeds[i].index] = static_cast<int>(i);
    }
    return Status::OK();
  }
  int Find(const Output& o) const {
    auto it = by_node_.find(o.node->id());
    return it == by_node_.end() ? -1 : it->second[o.index];
  }
  // A node with a fed output is replaced by its feeds: control edges from
  // it are satisfied without running it.
  bool AnyFed(const Node* n) const { return by_node_.count(n->id()) > 0; }

 private:
  std::unordered_map<int, std::vector<int>> by_node_;
};

class PlanBuilder {
 public:
  PlanBuilder(const Graph& g, const FeedIndex& feeds, Device* device)
      : g_(g), feeds_(feeds), device_(device), plan_(std::make_shared<Plan>()) {}

  Result<std::shared_ptr<Plan>> Build(const std::vector<Output>& fetches, const std::vector<Node*>& targets) {
    plan_->graph_edits = g_.edits();
    plan_->num_fetches = static_cast<int32_t>(fetches.size());
    Prune(fetches, targets);
    TFG_RETURN_IF_ERROR(Order());
    Layout();
    Wire(fetches);
    TFG_RETURN_IF_ERROR(CreateKernels());
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
  // plans are deterministic.
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
        if (feeds_.Find(in) >= 0) continue;
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
                    fmt::format("the graph has a cycle through {} (check control dependencies)", Describe(*nodes[i])),
                    nodes[i]->span());
    }
    return Internal("topological sort lost nodes");
  }

  void Layout() {
    plan_index_.assign(g_.num_nodes(), -1);
    plan_->nodes.resize(order_.size());
    int32_t inputs = 0, outputs = 0;
    for (size_t i = 0; i < order_.size(); ++i) {
      PlanNode& pn = plan_->nodes[i];
      pn.node = order_[i];
      pn.input_start = inputs;
      pn.num_inputs = static_cast<int32_t>(pn.node->inputs().size());
      pn.output_start = outputs;
      pn.num_outputs = pn.node->num_outputs();
      inputs += pn.num_inputs;
      outputs += pn.num_outputs;
      plan_index_[pn.node->id()] = static_cast<int32_t>(i);
    }
    plan_->num_input_slots = inputs;
    plan_->num_output_slots = outputs;
  }

  void Wire(const std::vector<Output>& fetches);
  void Flatten(std::vector<std::vector<PlanEdge>>& out, std::vector<std::vector<int32_t>>& control);
  Status CreateKernels();

  const Graph& g_;
  const FeedIndex& feeds_;
  Device* device_;
  std::shared_ptr<Plan> plan_;
  std::vector<char> needed_;
  std::vector<const Node*> order_;
  std::vector<int32_t> plan_index_;  // by node id; -1: not in the plan
};

void PlanBuilder::Wire(const std::vector<Output>& fetches) {
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
        plan_->feed_edges.push_back({feed, static_cast<int32_t>(i), slot});
        continue;
      }
      out[plan_index_[inputs[k].node->id()]].push_back({inputs[k].index, static_cast<int32_t>(i), slot, false});
      ++pn.initial_pending;
    }
    for (const Node* c : pn.node->control_inputs()) {
      if (plan_index_[c->id()] < 0) continue;
      control[plan_index_[c->id()]].push_back(static_cast<int32_t>(i));
      ++pn.initial_pending;
    }
  }
  for (size_t j = 0; j < fetches.size(); ++j) {
    int feed = feeds_.Find(fetches[j]);
    if (feed >= 0) {
      plan_->feed_edges.push_back({feed, -1, static_cast<int32_t>(j)});
    } else {
      out[plan_index_[fetches[j].node->id()]].push_back({fetches[j].index, -1, static_cast<int32_t>(j), false});
    }
  }
  Flatten(out, control);
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
  }
  return Status::OK();
}

}  // namespace

StepSlots::StepSlots(const Plan& plan)
    : pending(std::make_unique<std::atomic<int32_t>[]>(plan.nodes.size())),
      inputs(plan.num_input_slots),
      outputs(plan.num_output_slots) {
  Reset(plan);
}

void StepSlots::Reset(const Plan& plan) {
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    pending[i].store(plan.nodes[i].initial_pending, std::memory_order_relaxed);
  }
}

// Enough for the steps of a few host threads running one signature at once.
constexpr size_t kMaxFreeSlots = 4;

std::unique_ptr<StepSlots> Plan::AcquireSlots() const {
  {
    std::lock_guard<std::mutex> lock(slots_mu_);
    if (!free_slots_.empty()) {
      std::unique_ptr<StepSlots> slots = std::move(free_slots_.back());
      free_slots_.pop_back();
      slots->Reset(*this);
      return slots;
    }
  }
  return std::make_unique<StepSlots>(*this);
}

void Plan::ReleaseSlots(std::unique_ptr<StepSlots> slots) const {
  std::lock_guard<std::mutex> lock(slots_mu_);
  if (free_slots_.size() < kMaxFreeSlots) free_slots_.push_back(std::move(slots));
}

Status AnnotateNodeError(Status status, const Node& node) {
  std::string who = Describe(node);
  if (status.message().rfind(who, 0) != 0) status.Prepend(who + ": ");
  status.WithSpan(node.span());
  return status;
}

Result<std::shared_ptr<Plan>> BuildPlan(const Graph& graph, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                        Device* device) {
  FeedIndex feed_index;
  TFG_RETURN_IF_ERROR(feed_index.Init(graph, feeds));
  for (const Output& f : fetches) TFG_RETURN_IF_ERROR(CheckOutput(graph, f, "fetch"));
  for (const Node* t : targets) {
    if (!InGraph(graph, t)) return InvalidArgument("a run target refers to a node that is not in this graph");
  }
  return PlanBuilder(graph, feed_index, device).Build(fetches, targets);
}

}  // namespace tfg
