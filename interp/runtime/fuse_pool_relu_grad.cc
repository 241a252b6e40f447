#include "interp/runtime/fuse_pool_relu_grad.h"

#include <unordered_map>

#include "interp/runtime/fuse_conv.h"
#include "interp/runtime/fusion_scope.h"
#include "interp/runtime/redirect_uses.h"

namespace tfg {
namespace {

constexpr char kFusedOp[] = "max_pool_relu_grad";

struct Pair {
  Node* pool_grad = nullptr;
  Node* relu_grad = nullptr;
};

class PoolReluGradFuser {
 public:
  PoolReluGradFuser(Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets)
      : g_(g), n_(g.num_nodes()), scope_(g, fetches, targets), member_(n_, 0) {}

  void FindPairs() {
    for (int id = 0; id < n_; ++id) {
      Pair p;
      if (!Match(*g_.node(id), p)) continue;
      member_[p.pool_grad->id()] = member_[p.relu_grad->id()] = 1;
      pairs_.push_back(p);
    }
  }

  Result<FuseResult> Rewrite(std::vector<Output>& fetches) {
    FuseResult result;
    for (const Pair& p : pairs_) {
      TFG_ASSIGN_OR_RETURN(Node * fused, AddFused(p));
      replacement_[p.relu_grad->id()] = fused->output(0);
      ++result.groups;
      result.members += 2;
    }
    TFG_RETURN_IF_ERROR(RedirectUses(g_, n_, [&](int id) { return member_[id]; }, replacement_, fetches));
    return result;
  }

 private:
  bool Free(const Node& n, const char* op, size_t inputs) const {
    return n.op_name() == op && n.inputs().size() == inputs && n.num_outputs() == 1 && !scope_.blocked[n.id()];
  }

  bool Match(Node& relu_grad, Pair& p) const {
    if (!Free(relu_grad, "relu_grad", 2)) return false;
    const Output& routed = relu_grad.inputs()[0];
    const Output& mask = relu_grad.inputs()[1];
    Node* pool_grad = g_.node(routed.node->id());
    if (!Free(*pool_grad, "max_pool_grad", 2) || scope_.fetched[pool_grad->id()] ||
        scope_.users[pool_grad->id()].size() != 1) {
      return false;
    }
    const Output& input = pool_grad->inputs()[0];
    if (mask.node != input.node || mask.index != input.index) return false;
    if (!OnSameDevice(*pool_grad, relu_grad)) return false;
    p.pool_grad = pool_grad;
    p.relu_grad = &relu_grad;
    return true;
  }

  // A pair's inputs may be an earlier pair's relu_grad (pooling twice
  // after one relu): then they read its fused node.
  Output Mapped(const Output& o) const {
    auto it = replacement_.find(o.node->id());
    return it == replacement_.end() ? o : it->second;
  }

  Result<Node*> AddFused(const Pair& p) {
    const Node& pool_grad = *p.pool_grad;
    NodeSpec spec;
    spec.op = kFusedOp;
    spec.inputs = {Mapped(pool_grad.inputs()[0]), Mapped(pool_grad.inputs()[1])};
    spec.attrs = pool_grad.attrs();
    // A bad window or gradient shape is max_pool's error: its line.
    spec.span = pool_grad.span();
    return AddFusedNode(g_, std::move(spec), *p.relu_grad, "fusing a max_pool gradient");
  }

  Graph& g_;
  const int n_;  // nodes before fusion; fused nodes come after
  const FusionScope scope_;
  std::vector<char> member_;
  std::vector<Pair> pairs_;
  std::unordered_map<int, Output> replacement_;  // a pair's relu_grad id -> its fused node's output
};

}  // namespace

Result<FuseResult> FuseMaxPoolReluGrad(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  if (!ConvFusionEnabled()) return FuseResult{};
  PoolReluGradFuser fuser(g, fetches, targets);
  fuser.FindPairs();
  return fuser.Rewrite(fetches);
}

}  // namespace tfg
