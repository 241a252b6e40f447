#include "interp/runtime/fuse_elementwise.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "interp/runtime/redirect_uses.h"
#include "ops/math/fused/block_ops.h"
#include "ops/math/fused/fused_cuda_source.h"
#include "ops/math/fused/fused_program.h"
#include "ops/math/fused/member_spans.h"

namespace tfg {
namespace {

constexpr char kFusedOp[] = "fused_elementwise";
// Results of at most this many elements are not worth a fused kernel.
constexpr int64_t kSmallElements = 4096;

int DispatchInputOf(const Node& n) { return n.op_name() == "where" ? 1 : 0; }

bool IsGpuElementwise(const Node& n) {
  if (n.num_outputs() != 1 || n.inputs().empty()) return false;
  const DType t = n.output_types()[0];
  const fused::GpuMemberOp* op = fused::FindGpuMemberOp(n.op_name(), t);
  if (op == nullptr || op->arity != static_cast<int>(n.inputs().size())) return false;
  // The kernel reads its program as the CPU one does (fused/fused_program.h).
  if (fused::FindBlockOp(n.op_name(), t, t) == nullptr) return false;
  return std::all_of(n.input_types().begin(), n.input_types().end(), [&](DType in) { return in == t; });
}

bool IsCpuElementwise(const Node& n) {
  if (n.num_outputs() != 1 || n.inputs().empty()) return false;
  const int d = DispatchInputOf(n);
  if (d >= static_cast<int>(n.input_types().size())) return false;
  const fused::BlockOp* op = fused::FindBlockOp(n.op_name(), n.input_types()[d], n.output_types()[0]);
  return op != nullptr && op->arity == static_cast<int>(n.inputs().size());
}

// A reduction its fused kernel handles in one pass: of the trailing axes
// (all of them, or the last ones of a known rank).
bool IsTrailingReduction(const Node& n) {
  if (!fused::IsFusableReduction(n.op_name()) || n.inputs().size() != 1 || n.num_outputs() != 1) return false;
  auto it = n.attrs().find("axis");
  if (it == n.attrs().end() || std::holds_alternative<std::monostate>(it->second)) return true;
  const PartialShape& in = n.inputs()[0].shape();
  if (!in.known_rank()) return false;
  std::vector<int64_t> axes;
  if (const auto* one = std::get_if<int64_t>(&it->second)) axes = {*one};
  if (const auto* list = std::get_if<std::vector<int64_t>>(&it->second)) axes = *list;
  const int64_t rank = in.rank();
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) return false;
  }
  return !axes.empty();
}

bool Big(const PartialShape& s) { return !s.fully_defined() || s.num_elements() > kSmallElements; }

class Fuser {
 public:
  Fuser(Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets, const FuseOptions& options)
      : g_(g), n_(g.num_nodes()), consumers_(n_), group_of_(n_, -1), blocked_(n_, 0), fetched_(n_, 0),
        target_(n_, FuseTarget::kCpu) {
    for (const auto& node : g.nodes()) {
      for (const Output& in : node->inputs()) consumers_[in.node->id()].push_back(node->id());
      for (const Node* c : node->control_inputs()) blocked_[c->id()] = 1;
      if (!node->control_inputs().empty()) blocked_[node->id()] = 1;
    }
    for (const Output& f : fetches) fetched_[f.node->id()] = 1;
    for (const Node* t : targets) blocked_[t->id()] = 1;
    if (options.target_of) {
      for (const auto& node : g.nodes()) target_[node->id()] = options.target_of(*node);
    }
    gpu_groups_ = !options.check_numerics;
  }

  void FindGroups() {
    for (int id = n_ - 1; id >= 0; --id) {
      if (group_of_[id] >= 0 || blocked_[id]) continue;
      const Node& root = *g_.node(id);
      const bool reduction = target_[id] == FuseTarget::kCpu && IsTrailingReduction(root);
      if (!reduction && !IsElementwise(root)) continue;
      // With extra outputs first; without when that group would close a
      // cycle or not qualify.
      for (bool exports : {true, false}) {
        if (TryGroup(id, reduction, exports)) break;
      }
    }
  }

  bool TryGroup(int id, bool reduction, bool exports) {
    const Node& root = *g_.node(id);
    const int group = static_cast<int>(groups_.size());
    std::vector<int> members = Grow(id, group, exports);
    const int elementwise = static_cast<int>(members.size()) - (reduction ? 1 : 0);
    const Node& last = reduction ? *root.inputs()[0].node : root;
    const bool whole = !reduction || group_of_[last.id()] == group;
    std::sort(members.begin(), members.end());
    if (whole && elementwise >= (reduction ? 1 : 2) && Big(last.output_shapes()[0])) {
      groups_.push_back(members);
      exports_.push_back(Exports(members, group));
      if (exports_.back().empty() || GroupsAcyclic()) return true;
      groups_.pop_back();
      exports_.pop_back();
    }
    for (int m : members) group_of_[m] = -1;
    return false;
  }

  Result<FuseResult> Rewrite(std::vector<Output>& fetches, const FuseOptions& options) {
    FuseResult result;
    // Roots in id order, so a group reading an earlier group's result
    // reads its fused node.
    std::vector<size_t> order(groups_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups_[a].back() < groups_[b].back(); });
    for (size_t gi : order) {
      TFG_ASSIGN_OR_RETURN(Node * fused, AddFused(static_cast<int>(gi), options));
      replacement_[groups_[gi].back()] = fused->output(0);
      for (size_t e = 0; e < exports_[gi].size(); ++e) {
        replacement_[exports_[gi][e]] = fused->output(static_cast<int>(e) + 1);
      }
      ++result.groups;
      result.members += static_cast<int64_t>(groups_[gi].size());
    }
    TFG_RETURN_IF_ERROR(RedirectUses(g_, n_, [&](int id) { return group_of_[id] >= 0; }, replacement_, fetches));
    return result;
  }

 private:
  static std::string DeviceOf(const Node& n) { return n.requested_device() + "|" + n.assigned_device(); }

  bool IsElementwise(const Node& n) const {
    switch (target_[n.id()]) {
      case FuseTarget::kCpu: return IsCpuElementwise(n);
      case FuseTarget::kGpu: return gpu_groups_ && IsGpuElementwise(n);
      case FuseTarget::kNone: return false;
    }
    return false;
  }

  // The root and every elementwise node all of whose users are already in
  // the group, to a fixed point; with `exports`, also a node used outside
  // the group (or fetched) whose static shape is the group's, big and
  // known: its value becomes an extra output of the fused node.
  std::vector<int> Grow(int root, int group, bool exports) {
    std::vector<int> members{root};
    group_of_[root] = group;
    const Node& r = *g_.node(root);
    const PartialShape& shape = IsTrailingReduction(r) ? r.inputs()[0].shape() : r.output_shapes()[0];
    const std::string device = DeviceOf(r);
    for (size_t k = 0; k < members.size(); ++k) {
      for (const Output& in : g_.node(members[k])->inputs()) {
        const int p = in.node->id();
        if (group_of_[p] >= 0 || blocked_[p] || !IsElementwise(*in.node) || target_[p] != target_[root]) continue;
        if (DeviceOf(*in.node) != device) continue;
        const auto& users = consumers_[p];
        const bool inside =
            !fetched_[p] && std::all_of(users.begin(), users.end(), [&](int u) { return group_of_[u] == group; });
        if (!inside && !(exports && Exportable(in.node->output_shapes()[0], shape))) continue;
        group_of_[p] = group;
        members.push_back(p);
      }
    }
    return members;
  }

  static bool Exportable(const PartialShape& value, const PartialShape& group) {
    return value.fully_defined() && value.num_elements() > kSmallElements && value == group;
  }

  // The members (not the root) whose values leave the group: used by a
  // node outside it, or fetched.
  std::vector<int> Exports(const std::vector<int>& members, int group) const {
    std::vector<int> out;
    for (size_t k = 0; k + 1 < members.size(); ++k) {
      const int id = members[k];
      const auto& users = consumers_[id];
      if (fetched_[id] || std::any_of(users.begin(), users.end(), [&](int u) { return group_of_[u] != group; })) {
        out.push_back(id);
      }
    }
    return out;
  }

  // Whether the graph with every group so far taken as one node has no
  // cycle: a group's extra output may reach, through nodes outside it, one
  // of its own inputs (or another group's that feeds it).
  bool GroupsAcyclic() const {
    const int total = n_ + static_cast<int>(groups_.size()) + 1;
    auto rep = [&](int id) { return group_of_[id] >= 0 ? n_ + group_of_[id] : id; };
    std::vector<std::vector<int>> next(total);
    std::vector<int> indegree(total, 0);
    for (int id = 0; id < n_; ++id) {
      const Node* node = g_.node(id);
      auto edge = [&](int from) {
        const int a = rep(from), b = rep(id);
        if (a == b) return;
        next[a].push_back(b);
        ++indegree[b];
      };
      for (const Output& in : node->inputs()) edge(in.node->id());
      for (const Node* c : node->control_inputs()) edge(c->id());
    }
    std::vector<int> ready;
    for (int v = 0; v < total; ++v) {
      if (indegree[v] == 0) ready.push_back(v);
    }
    int seen = 0;
    while (!ready.empty()) {
      const int v = ready.back();
      ready.pop_back();
      ++seen;
      for (int w : next[v]) {
        if (--indegree[w] == 0) ready.push_back(w);
      }
    }
    return seen == total;
  }

  Output Mapped(const Output& o) const {
    auto it = replacement_.find(o.node->id());
    return it == replacement_.end() ? o : it->second;
  }

  Result<Node*> AddFused(int group, const FuseOptions& options) {
    const std::vector<int>& members = groups_[group];
    Node& root = *g_.node(members.back());
    std::unordered_map<int, int> index;
    std::vector<Output> inputs;
    std::vector<DType> in_types, types;
    std::vector<std::string> ops, names;
    std::vector<int64_t> args, spans;
    std::vector<double> params;
    bool any_param = false;
    for (size_t k = 0; k < members.size(); ++k) {
      const Node& m = *g_.node(members[k]);
      index[m.id()] = static_cast<int>(k);
      for (const Output& in : m.inputs()) {
        if (group_of_[in.node->id()] == group) {
          args.push_back(-1 - index.at(in.node->id()));
          continue;
        }
        const Output src = Mapped(in);
        auto at = std::find(inputs.begin(), inputs.end(), src);
        if (at == inputs.end()) {
          inputs.push_back(src);
          in_types.push_back(src.dtype());
          at = inputs.end() - 1;
        }
        args.push_back(at - inputs.begin());
      }
      ops.push_back(m.op_name());
      names.push_back(m.name());
      types.push_back(m.output_types()[0]);
      spans.push_back(fused::InternSpan(m.span()));
      const fused::BlockOp* block =
          IsCpuElementwise(m)
              ? fused::FindBlockOp(m.op_name(), m.input_types()[DispatchInputOf(m)], m.output_types()[0])
              : nullptr;
      params.push_back(block != nullptr ? fused::BlockParam(*block, m.attrs()) : 0);
      any_param = any_param || (block != nullptr && block->param_attr != nullptr);
    }
    NodeSpec spec;
    spec.op = kFusedOp;
    spec.inputs = std::move(inputs);
    spec.attrs["Tin"] = in_types;
    spec.attrs["Tout"] = root.output_types()[0];
    spec.attrs["ops"] = ops;
    spec.attrs["names"] = names;
    spec.attrs["types"] = types;
    spec.attrs["args"] = args;
    spec.attrs["spans"] = spans;
    if (any_param) spec.attrs["params"] = params;
    spec.attrs["shape"] = root.output_shapes()[0];
    std::vector<int64_t> exported;
    std::vector<DType> extra_types;
    std::vector<PartialShape> extra_shapes;
    for (int id : exports_[group]) {
      exported.push_back(index.at(id));
      extra_types.push_back(g_.node(id)->output_types()[0]);
      extra_shapes.push_back(g_.node(id)->output_shapes()[0]);
    }
    spec.attrs["exports"] = exported;
    spec.attrs["Textra"] = extra_types;
    spec.attrs["extra_shapes"] = extra_shapes;
    spec.attrs["check_numerics"] = options.check_numerics;
    if (fused::IsFusableReduction(root.op_name())) {
      auto axis = root.attrs().find("axis");
      if (axis != root.attrs().end()) spec.attrs["axis"] = axis->second;
      if (const bool* keep = root.attr<bool>("keepdims")) spec.attrs["keepdims"] = *keep;
    }
    spec.name = root.name() + "/fused";
    spec.device = root.requested_device();
    spec.span = root.span();
    auto node = g_.AddNode(std::move(spec));
    if (!node.ok()) {
      Status s = node.status();
      return s.Prepend("fusing elementwise ops: ");
    }
    if (!root.assigned_device().empty()) (*node)->set_assigned_device(root.assigned_device());
    return *node;
  }

  Graph& g_;
  const int n_;  // nodes before fusion; fused nodes come after
  std::vector<std::vector<int>> consumers_;
  std::vector<int> group_of_;
  std::vector<char> blocked_, fetched_;
  std::vector<FuseTarget> target_;
  bool gpu_groups_ = true;
  std::vector<std::vector<int>> groups_;      // member ids, ascending: the root last
  std::vector<std::vector<int>> exports_;     // per group: member ids whose values are extra outputs
  std::unordered_map<int, Output> replacement_;  // root or exported member id -> the fused node's output
};

}  // namespace

bool ElementwiseFusionEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TFG_FUSE_ELEMENTWISE");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

Result<FuseResult> FuseElementwise(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                   const FuseOptions& options) {
  if (!ElementwiseFusionEnabled()) return FuseResult{};
  Fuser fuser(g, fetches, targets, options);
  fuser.FindGroups();
  return fuser.Rewrite(fetches, options);
}

std::string KernelLabel(const Node& node) {
  const auto* ops = node.attr<std::vector<std::string>>("ops");
  if (node.op_name() != kFusedOp || ops == nullptr) return node.op_name();
  std::string label = node.op_name() + "[";
  for (size_t i = 0; i < ops->size(); ++i) label += (i ? "+" : "") + (*ops)[i];
  return label + "]";
}

std::string FusedMemberLines(const Node& node) {
  const auto* names = node.attr<std::vector<std::string>>("names");
  if (node.op_name() != kFusedOp || names == nullptr) return "";
  std::string lines = "\nmembers:";
  for (size_t i = 0; i < names->size(); ++i) lines += (i ? ", " : " ") + (*names)[i];
  return lines;
}

}  // namespace tfg
