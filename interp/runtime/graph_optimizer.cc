#include "interp/runtime/graph_optimizer.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

#include "interp/runtime/fuse_conv.h"
#include "interp/runtime/fuse_pool_relu_grad.h"
#include "interp/runtime/fuse_elementwise.h"
#include "interp/runtime/optimizer_passes.h"
#include "interp/runtime/run_signature.h"
#include "ops/core/control_flow.h"

namespace tfg {
namespace {

// What the fetches and targets need, walking data and control inputs
// backwards and stopping at fed outputs (as the plan builder prunes).
std::vector<char> NeededNodes(const Graph& g, const FeedIndex& feeds, const std::vector<Output>& fetches,
                              const std::vector<Node*>& targets) {
  std::vector<char> needed(g.num_nodes(), 0);
  std::vector<const Node*> stack;
  auto need = [&](const Node* n) {
    if (!needed[n->id()]) {
      needed[n->id()] = 1;
      stack.push_back(n);
    }
  };
  for (const Output& f : fetches) {
    if (feeds.Find(f) < 0) need(f.node);
  }
  for (const Node* t : targets) need(t);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Output& in : n->inputs()) {
      if (feeds.Find(in) < 0) need(in.node);
    }
    for (const Node* c : n->control_inputs()) {
      if (!feeds.AnyFed(c)) need(c);
    }
  }
  return needed;
}

// Nodes left with pending inputs after the sort lie on or behind a cycle.
Status CycleError(const std::vector<const Node*>& stuck) {
  const Node& n = *stuck.front();
  return Status(Code::kInvalidArgument,
                fmt::format("the graph has a cycle through {} (check control dependencies)", DescribeNode(n)), n.span());
}

// Kahn's algorithm over the needed nodes, ties broken by node id. Control
// inputs added after a node was built may come later in id order, so id
// order alone is no topological order.
Result<std::vector<const Node*>> TopologicalOrder(const Graph& g, const FeedIndex& feeds,
                                                  const std::vector<char>& needed) {
  std::vector<int32_t> pending(g.num_nodes(), 0);
  std::vector<std::vector<int32_t>> consumers(g.num_nodes());
  size_t count = 0;
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (!needed[id]) continue;
    ++count;
    const Node* n = g.node(id);
    for (const Output& in : n->inputs()) {
      if (feeds.Find(in) >= 0 || IsLoopBackEdge(*n, in)) continue;
      consumers[in.node->id()].push_back(id);
      ++pending[id];
    }
    for (const Node* c : n->control_inputs()) {
      if (!needed[c->id()]) continue;
      consumers[c->id()].push_back(id);
      ++pending[id];
    }
  }
  std::deque<int32_t> ready;
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (needed[id] && pending[id] == 0) ready.push_back(id);
  }
  std::vector<const Node*> order;
  while (!ready.empty()) {
    int32_t id = ready.front();
    ready.pop_front();
    order.push_back(g.node(id));
    for (int32_t c : consumers[id]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (order.size() == count) return order;
  std::vector<const Node*> stuck;
  for (int id = 0; id < g.num_nodes(); ++id) {
    if (needed[id] && pending[id] > 0) stuck.push_back(g.node(id));
  }
  return CycleError(stuck);
}

// Copies needed nodes, in topological order, into a new graph; with
// `optimize`, folds and merges on the way. Every node of the source maps to
// its image: itself copied, the constant it folded to, or the equal node it
// was merged with.
class Rewriter {
 public:
  Rewriter(const Graph& src, const FeedIndex& feeds, const OptimizeOptions& options, bool optimize, Device* cpu)
      : src_(src), feeds_(feeds), options_(options), optimize_(optimize), cpu_(cpu),
        graph_(std::make_unique<Graph>()), images_(src.num_nodes()), node_images_(src.num_nodes(), nullptr) {}

  // Gives every fed output its image: the fed node itself when it is a
  // placeholder (it has no inputs), else a placeholder standing in for it.
  Status AddFeeds(const std::vector<Output>& feeds) {
    for (const Output& f : feeds) {
      if (f.node->op_name() == "placeholder") {
        TFG_RETURN_IF_ERROR(CopyNode(*f.node, /*drop_control=*/true));
        feed_images_.push_back(images_[f.node->id()][f.index]);
        continue;
      }
      TFG_ASSIGN_OR_RETURN(Node * stand_in, AddStandIn(f));
      feed_images_.push_back(stand_in->output(0));
      ++stand_ins_;
    }
    return Status::OK();
  }

  Status CopyNodes(const std::vector<const Node*>& order) {
    for (const Node* n : order) TFG_RETURN_IF_ERROR(CopyNode(*n, /*drop_control=*/false));
    for (const BackEdge& e : back_edges_) {
      Status s = e.merge->ReplaceInput(e.input, Map(e.source));
      if (!s.ok()) return s.WithSpan(e.merge->span());
    }
    return Status::OK();
  }

  Output Map(const Output& o) const {
    int feed = feeds_.Find(o);
    return feed >= 0 ? feed_images_[feed] : images_[o.node->id()][o.index];
  }
  Node* Map(const Node* n) const { return node_images_[n->id()]; }

  std::unique_ptr<Graph> TakeGraph() { return std::move(graph_); }
  const std::vector<Output>& feed_images() const { return feed_images_; }
  int64_t folded() const { return folded_; }
  int64_t merged() const { return merged_; }
  int64_t stand_ins() const { return stand_ins_; }

 private:
  Status CopyNode(const Node& n, bool drop_control);
  NodeSpec SpecFor(const Node& n, bool drop_control) const;
  std::optional<Tensor> TryFold(const Node& n, const NodeSpec& spec);
  Result<Node*> Add(const Node& n, NodeSpec spec);
  Result<Node*> AddStandIn(const Output& fed);
  // A merge's input from next_iteration, connected once both are copied.
  struct BackEdge {
    Node* merge;
    int input;
    Output source;
  };
  bool Copied(const Output& o) const { return feeds_.Find(o) >= 0 || !images_[o.node->id()].empty(); }
  void SetImage(const Node& n, Node* image) {
    node_images_[n.id()] = image;
    auto& outputs = images_[n.id()];
    for (int i = 0; i < image->num_outputs(); ++i) outputs.push_back(image->output(i));
  }

  const Graph& src_;
  const FeedIndex& feeds_;
  const OptimizeOptions& options_;
  const bool optimize_;
  Device* cpu_;
  std::unique_ptr<Graph> graph_;
  std::vector<std::vector<Output>> images_;  // by source node id, per output
  std::vector<Node*> node_images_;           // by source node id
  std::vector<Output> feed_images_;          // by feed index
  std::vector<BackEdge> back_edges_;
  CseTable cse_;
  int64_t folded_elements_ = 0;
  int64_t folded_ = 0, merged_ = 0, stand_ins_ = 0;
};

Status Rewriter::CopyNode(const Node& n, bool drop_control) {
  if (node_images_[n.id()] != nullptr) return Status::OK();  // a fed placeholder that is also a target
  for (const Output& in : n.inputs()) {
    if (!Copied(in) && !(IsLoopBackEdge(n, in) && Copied(n.inputs()[while_loop::kMergeFromEnter]))) {
      return Status(Code::kInternal, fmt::format("optimizing: an input of {} is not ready", DescribeNode(n)), n.span());
    }
  }
  NodeSpec spec = SpecFor(n, drop_control);
  const bool rewritable = optimize_ && MayRewrite(n);
  bool folded = false;
  if (rewritable && options_.constant_folding) {
    if (std::optional<Tensor> value = TryFold(n, spec)) {
      NodeSpec constant;
      constant.op = "constant";
      constant.attrs["value"] = *value;
      constant.attrs["dtype"] = value->dtype();
      constant.name = n.name();
      constant.device = n.requested_device();
      constant.span = n.span();
      spec = std::move(constant);
      folded = true;
    }
  }
  if (rewritable && options_.common_subexpression_elimination) {
    if (Node* same = cse_.Find(spec)) {
      ++(folded ? folded_ : merged_);
      SetImage(n, same);
      return Status::OK();
    }
  }
  TFG_ASSIGN_OR_RETURN(Node * node, Add(n, std::move(spec)));
  for (size_t i = 0; i < n.inputs().size(); ++i) {
    if (!Copied(n.inputs()[i])) back_edges_.push_back({node, static_cast<int>(i), n.inputs()[i]});
  }
  if (rewritable) cse_.Insert(node);
  if (folded) ++folded_;
  SetImage(n, node);
  return Status::OK();
}

// The node as it was built, its edges mapped into the new graph. A control
// input from a fed node that nothing else needs is satisfied without
// running it (as the plan builder has it), so it has no image and goes.
NodeSpec Rewriter::SpecFor(const Node& n, bool drop_control) const {
  NodeSpec spec;
  spec.op = n.op_name();
  for (const Output& in : n.inputs()) {
    // A back edge's source comes later: the merge is built with its first
    // input in that place, as while_loop builds it, and connected at the end.
    const Output& now = Copied(in) || !IsLoopBackEdge(n, in) ? in : n.inputs()[while_loop::kMergeFromEnter];
    spec.inputs.push_back(Map(now));
  }
  if (!drop_control) {
    for (const Node* c : n.control_inputs()) {
      if (Node* image = Map(c)) spec.control_inputs.push_back(image);
    }
  }
  spec.attrs = n.attrs();
  spec.name = n.name();
  spec.device = n.requested_device();
  spec.span = n.span();
  return spec;
}

std::optional<Tensor> Rewriter::TryFold(const Node& n, const NodeSpec& spec) {
  std::vector<Tensor> values;
  for (const Output& in : spec.inputs) {
    // A constant with control inputs may live in a loop frame: what it
    // feeds stays in that frame.
    const Node& producer = *in.node;
    if (producer.op_name() != "constant" || !producer.control_inputs().empty()) return std::nullopt;
    const Tensor* value = producer.attr<Tensor>("value");
    if (value == nullptr) return std::nullopt;
    values.push_back(*value);
  }
  const int64_t budget = options_.max_total_folded_elements - folded_elements_;
  std::optional<Tensor> folded = FoldNode(n, values, std::min(options_.max_folded_elements, budget), cpu_);
  if (folded) folded_elements_ += folded->num_elements();
  return folded;
}

Result<Node*> Rewriter::Add(const Node& n, NodeSpec spec) {
  TFG_ASSIGN_OR_RETURN(Node * node, graph_->AddNode(std::move(spec)));
  if (!n.assigned_device().empty()) node->set_assigned_device(n.assigned_device());
  // Shapes refined after building (set_shape) are part of the contract.
  for (int i = 0; i < node->num_outputs() && i < n.num_outputs(); ++i) {
    Status s = node->RefineOutputShape(i, n.output_shapes()[i]);
    if (!s.ok()) return s.WithSpan(n.span());
  }
  return node;
}

// A placeholder for a fed output of a node that is not one, named so it
// takes no name of the source graph.
Result<Node*> Rewriter::AddStandIn(const Output& fed) {
  std::string base = fed.node->name() + "/fed_" + std::to_string(fed.index);
  std::string name = base;
  for (int k = 1; src_.FindNode(name) || graph_->FindNode(name); ++k) name = base + "_" + std::to_string(k);
  NodeSpec spec;
  spec.op = "placeholder";
  spec.attrs["dtype"] = fed.dtype();
  spec.attrs["shape"] = fed.shape();
  spec.name = name;
  spec.device = fed.node->requested_device();
  spec.span = fed.node->span();
  return graph_->AddNode(std::move(spec));
}

struct Pass {
  OptimizedGraph out;
  int64_t stand_ins = 0;
};

Result<Pass> RunPass(const Graph& g, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                     const std::vector<Node*>& targets, const OptimizeOptions& options, bool optimize, Device* cpu) {
  FeedIndex index;
  TFG_RETURN_IF_ERROR(index.Init(g, feeds));
  for (const Output& f : fetches) TFG_RETURN_IF_ERROR(CheckRunOutput(g, f, "fetch"));
  for (const Node* t : targets) {
    if (!InGraph(g, t)) return InvalidArgument("a run target refers to a node that is not in this graph");
  }
  TFG_ASSIGN_OR_RETURN(std::vector<const Node*> order,
                       TopologicalOrder(g, index, NeededNodes(g, index, fetches, targets)));
  Rewriter rewriter(g, index, options, optimize, cpu);
  TFG_RETURN_IF_ERROR(rewriter.AddFeeds(feeds));
  TFG_RETURN_IF_ERROR(rewriter.CopyNodes(order));
  Pass pass;
  pass.out.feeds = rewriter.feed_images();
  for (const Output& f : fetches) pass.out.fetches.push_back(rewriter.Map(f));
  for (const Node* t : targets) pass.out.targets.push_back(rewriter.Map(t));
  pass.out.stats.folded = rewriter.folded();
  pass.out.stats.merged = rewriter.merged();
  pass.stand_ins = rewriter.stand_ins();
  pass.out.graph = rewriter.TakeGraph();
  return pass;
}

}  // namespace

std::string OptimizeStats::Summary() const {
  std::string s = fmt::format("folded {} node{}, merged {}, pruned {}", folded, folded == 1 ? "" : "s", merged, pruned);
  if (fused_kernels > 0) {
    s += fmt::format(", fused {} into {} kernel{}", fused, fused_kernels, fused_kernels == 1 ? "" : "s");
  }
  return s;
}

// Two passes: the first folds and merges, then convolution chains and
// elementwise groups are fused, and the second pass drops what that left
// unused (the inputs of folded nodes, the duplicates' inputs, the fused
// members).
Result<OptimizedGraph> OptimizeGraph(const Graph& graph, const std::vector<Output>& feeds,
                                     const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                     const OptimizeOptions& options, Device* cpu) {
  TFG_ASSIGN_OR_RETURN(Pass first, RunPass(graph, feeds, fetches, targets, options, /*optimize=*/true, cpu));
  OptimizedGraph& mid = first.out;
  FuseResult fused;
  if (options.fuse_elementwise) {
    // Not under --check-numerics: a NaN the convolution made would be
    // reported (or hidden by the ReLU) at the fused node, not the conv2d
    // (so too the max_pool_grad's under its relu_grad). Not on a placed
    // graph either (fuse_target set): both fused ops have CPU kernels only.
    if (!options.check_numerics && !options.fuse_target) {
      TFG_ASSIGN_OR_RETURN(fused, FuseConvBiasActivation(*mid.graph, mid.fetches, mid.targets));
      TFG_ASSIGN_OR_RETURN(FuseResult pools, FuseMaxPoolReluGrad(*mid.graph, mid.fetches, mid.targets));
      fused.groups += pools.groups;
      fused.members += pools.members;
    }
    if (fused.groups > 0) {
      // Drop the conv chains' members before the elementwise pass sees
      // them as users (or fuses their dead bias_add and relu).
      TFG_ASSIGN_OR_RETURN(Pass pruned,
                           RunPass(*mid.graph, mid.feeds, mid.fetches, mid.targets, options, /*optimize=*/false, cpu));
      pruned.out.stats = mid.stats;
      mid = std::move(pruned.out);
    }
    FuseOptions fuse;
    fuse.check_numerics = options.check_numerics;
    fuse.target_of = options.fuse_target;
    TFG_ASSIGN_OR_RETURN(FuseResult elementwise, FuseElementwise(*mid.graph, mid.fetches, mid.targets, fuse));
    fused.groups += elementwise.groups;
    fused.members += elementwise.members;
  }
  TFG_ASSIGN_OR_RETURN(Pass second,
                       RunPass(*mid.graph, mid.feeds, mid.fetches, mid.targets, options, /*optimize=*/false, cpu));
  OptimizedGraph out = std::move(second.out);
  out.stats = mid.stats;
  out.stats.fused = fused.members;
  out.stats.fused_kernels = fused.groups;
  // Source nodes with no image left: not needed, or needed only by what
  // was folded or fused. Stand-ins and fused nodes are images of no source node.
  const int64_t images = out.graph->num_nodes() - first.stand_ins - fused.groups + fused.members;
  out.stats.pruned = graph.num_nodes() - images - out.stats.merged;
  return out;
}

WholeGraphSignature SinkSignature(const Graph& graph) {
  std::vector<char> consumed(graph.num_nodes(), 0);
  for (const auto& n : graph.nodes()) {
    for (const Output& in : n->inputs()) consumed[in.node->id()] = 1;
    for (const Node* c : n->control_inputs()) consumed[c->id()] = 1;
  }
  WholeGraphSignature sig;
  for (const auto& n : graph.nodes()) {
    if (consumed[n->id()]) continue;
    if (n->num_outputs() == 0) sig.targets.push_back(n.get());
    for (int i = 0; i < n->num_outputs(); ++i) sig.fetches.push_back(n->output(i));
  }
  return sig;
}

}  // namespace tfg
