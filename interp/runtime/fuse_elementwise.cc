#include "interp/runtime/fuse_elementwise.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "ops/math/fused/block_ops.h"
#include "ops/math/fused/fused_program.h"
#include "ops/math/fused/member_spans.h"

namespace tfg {
namespace {

constexpr char kFusedOp[] = "fused_elementwise";
// Results of at most this many elements are not worth a fused kernel.
constexpr int64_t kSmallElements = 4096;

int DispatchInputOf(const Node& n) { return n.op_name() == "where" ? 1 : 0; }

bool IsElementwise(const Node& n) {
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
  Fuser(Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets)
      : g_(g), n_(g.num_nodes()), consumers_(n_), group_of_(n_, -1), blocked_(n_, 0), fetched_(n_, 0) {
    for (const auto& node : g.nodes()) {
      for (const Output& in : node->inputs()) consumers_[in.node->id()].push_back(node->id());
      for (const Node* c : node->control_inputs()) blocked_[c->id()] = 1;
      if (!node->control_inputs().empty()) blocked_[node->id()] = 1;
    }
    for (const Output& f : fetches) fetched_[f.node->id()] = 1;
    for (const Node* t : targets) blocked_[t->id()] = 1;
  }

  void FindGroups() {
    for (int id = n_ - 1; id >= 0; --id) {
      if (group_of_[id] >= 0 || blocked_[id]) continue;
      const Node& root = *g_.node(id);
      const bool reduction = IsTrailingReduction(root);
      if (!reduction && !IsElementwise(root)) continue;
      std::vector<int> members = Grow(id, static_cast<int>(groups_.size()));
      const int elementwise = static_cast<int>(members.size()) - (reduction ? 1 : 0);
      const Node& last = reduction ? *root.inputs()[0].node : root;
      const bool whole = !reduction || group_of_[last.id()] == group_of_[id];
      if (!whole || elementwise < (reduction ? 1 : 2) || !Big(last.output_shapes()[0])) {
        for (int m : members) group_of_[m] = -1;
        continue;
      }
      std::sort(members.begin(), members.end());
      groups_.push_back(std::move(members));
    }
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
      replacement_[groups_[gi].back()] = fused;
      ++result.groups;
      result.members += static_cast<int64_t>(groups_[gi].size());
    }
    for (int id = 0; id < n_; ++id) {
      if (group_of_[id] >= 0) continue;
      Node* node = g_.node(id);
      for (size_t i = 0; i < node->inputs().size(); ++i) {
        auto it = replacement_.find(node->inputs()[i].node->id());
        if (it != replacement_.end()) TFG_RETURN_IF_ERROR(node->ReplaceInput(static_cast<int>(i), it->second->output(0)));
      }
    }
    for (Output& f : fetches) {
      auto it = replacement_.find(f.node->id());
      if (it != replacement_.end()) f = it->second->output(0);
    }
    return result;
  }

 private:
  static std::string DeviceOf(const Node& n) { return n.requested_device() + "|" + n.assigned_device(); }

  // The root and every elementwise node all of whose users are already in
  // the group, to a fixed point.
  std::vector<int> Grow(int root, int group) {
    std::vector<int> members{root};
    group_of_[root] = group;
    const std::string device = DeviceOf(*g_.node(root));
    for (size_t k = 0; k < members.size(); ++k) {
      for (const Output& in : g_.node(members[k])->inputs()) {
        const int p = in.node->id();
        if (group_of_[p] >= 0 || blocked_[p] || fetched_[p] || !IsElementwise(*in.node)) continue;
        if (DeviceOf(*in.node) != device) continue;
        const auto& users = consumers_[p];
        if (!std::all_of(users.begin(), users.end(), [&](int u) { return group_of_[u] == group; })) continue;
        group_of_[p] = group;
        members.push_back(p);
      }
    }
    return members;
  }

  Output Mapped(const Output& o) const {
    auto it = replacement_.find(o.node->id());
    return it == replacement_.end() ? o : it->second->output(0);
  }

  Result<Node*> AddFused(int group, const FuseOptions& options) {
    const std::vector<int>& members = groups_[group];
    Node& root = *g_.node(members.back());
    std::unordered_map<int, int> index;
    std::vector<Output> inputs;
    std::vector<DType> in_types, types;
    std::vector<std::string> ops, names;
    std::vector<int64_t> args, spans;
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
    spec.attrs["shape"] = root.output_shapes()[0];
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
  std::vector<std::vector<int>> groups_;      // member ids, ascending: the root last
  std::unordered_map<int, Node*> replacement_;  // root id -> its fused node
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
  Fuser fuser(g, fetches, targets);
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
