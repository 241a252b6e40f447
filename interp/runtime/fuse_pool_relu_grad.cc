#include "interp/runtime/fuse_pool_relu_grad.h"

#include <unordered_map>

#include "interp/runtime/fuse_conv.h"
#include "interp/runtime/fusion_scope.h"
#include "ops/nn/max_pool_loops.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

constexpr char kFusedOp[] = "max_pool_relu_grad";
constexpr char kFusedFromTapsOp[] = "max_pool_relu_grad_from_taps";
constexpr char kPoolWithTapsOp[] = "max_pool_with_taps";

struct Pair {
  Node* pool_grad = nullptr;
  Node* relu_grad = nullptr;
  // bias_add_grad(relu_grad): the fused node's channel sums stand for them.
  std::vector<Node*> bias_grads;
  // The max_pool of the same input and window, when the plan has it: it
  // becomes max_pool_with_taps, and the pair reads its taps.
  Node* pool = nullptr;
};

class PoolReluGradFuser {
 public:
  PoolReluGradFuser(Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets)
      : g_(g), n_(g.num_nodes()), scope_(g, fetches, targets), rewrite_(n_) {}

  void FindPairs() {
    for (int id = 0; id < n_; ++id) {
      Pair p;
      if (!Match(*g_.node(id), p)) continue;
      rewrite_.AddMember(*p.pool_grad);
      rewrite_.AddMember(*p.relu_grad);
      for (const Node* b : p.bias_grads) rewrite_.AddMember(*b);
      p.pool = ForwardPool(*p.pool_grad);
      if (p.pool != nullptr) rewrite_.AddMember(*p.pool);
      pairs_.push_back(p);
    }
  }

  Result<FuseResult> Rewrite(std::vector<Output>& fetches) {
    FuseResult result;
    for (const Pair& p : pairs_) {
      TFG_ASSIGN_OR_RETURN(Node * fused, AddFused(p));
      rewrite_.Replace(*p.relu_grad, fused->output(0));
      for (const Node* b : p.bias_grads) rewrite_.Replace(*b, fused->output(1));
      ++result.groups;
      result.members += 2 + static_cast<int64_t>(p.bias_grads.size());
    }
    // Each max_pool_with_taps stands for one max_pool.
    result.groups += static_cast<int64_t>(with_taps_.size());
    result.members += static_cast<int64_t>(with_taps_.size());
    TFG_RETURN_IF_ERROR(rewrite_.RedirectUses(g_, fetches));
    return result;
  }

 private:
  bool Free(const Node& n, const char* op, size_t inputs) const {
    return n.op_name() == op && n.inputs().size() == inputs && n.num_outputs() == 1 && !scope_.blocked[n.id()];
  }

  bool Match(Node& relu_grad, Pair& p) const {
    if (!Free(relu_grad, "relu_grad", 2)) return false;
    Node* pool_grad = relu_grad.inputs()[0].node;
    if (!Free(*pool_grad, "max_pool_grad", 2) || scope_.fetched[pool_grad->id()] ||
        scope_.users[pool_grad->id()].size() != 1) {
      return false;
    }
    // relu_grad(routed, mask): the mask must be what the pool read.
    if (relu_grad.inputs()[1] != pool_grad->inputs()[0] || !OnSameDevice(*pool_grad, relu_grad)) return false;
    p.pool_grad = pool_grad;
    p.relu_grad = &relu_grad;
    for (const Node* user : scope_.users[relu_grad.id()]) {
      if (Free(*user, "bias_add_grad", 1) && user->id() < n_ && OnSameDevice(*user, relu_grad)) {
        p.bias_grads.push_back(g_.node(user->id()));
      }
    }
    return true;
  }

  // The max_pool whose gradient `pool_grad` is: same input, same window
  // attrs (the gradient copied them), same device, free to replace, and a
  // window whose argmax fits a TapCode. Both read one value, so they sit in
  // one frame, and the max_pool reads nothing else: taking its taps cannot
  // close a cycle.
  Node* ForwardPool(const Node& pool_grad) const {
    const Output& x = pool_grad.inputs()[0];
    auto window = nn::ReadWindowAttrs(pool_grad.op_name(), pool_grad.attrs());
    if (!window.ok() || window->ksize[0] * window->ksize[1] > nn::max_pool_loops::kMaxTapWindow) return nullptr;
    for (const Node* user : scope_.users[x.node->id()]) {
      if (!Free(*user, "max_pool", 1) || user->inputs()[0] != x || !OnSameDevice(*user, pool_grad)) continue;
      auto pool = nn::ReadWindowAttrs(user->op_name(), user->attrs());
      if (pool.ok() && pool->ksize == window->ksize && pool->strides == window->strides &&
          pool->padding == window->padding) {
        return g_.node(user->id());
      }
    }
    return nullptr;
  }

  // max_pool_with_taps for `pool`, once however many pairs read it.
  Result<Node*> PoolWithTaps(Node& pool) {
    auto it = with_taps_.find(pool.id());
    if (it != with_taps_.end()) return it->second;
    NodeSpec spec;
    spec.op = kPoolWithTapsOp;
    spec.inputs = {rewrite_.Mapped(pool.inputs()[0])};
    spec.attrs = pool.attrs();
    spec.span = pool.span();
    TFG_ASSIGN_OR_RETURN(Node * with_taps, AddFusedNode(g_, std::move(spec), pool, "fusing a max_pool"));
    rewrite_.Replace(pool, with_taps->output(0));
    with_taps_.emplace(pool.id(), with_taps);
    return with_taps;
  }

  Result<Node*> AddFused(const Pair& p) {
    const Node& pool_grad = *p.pool_grad;
    NodeSpec spec;
    spec.op = kFusedOp;
    spec.inputs = {rewrite_.Mapped(pool_grad.inputs()[0]), rewrite_.Mapped(pool_grad.inputs()[1])};
    if (p.pool != nullptr) {
      TFG_ASSIGN_OR_RETURN(Node * with_taps, PoolWithTaps(*p.pool));
      spec.op = kFusedFromTapsOp;
      spec.inputs.push_back(with_taps->output(1));
    }
    spec.attrs = pool_grad.attrs();
    // A bad window or gradient shape is max_pool's error: its line.
    spec.span = pool_grad.span();
    TFG_ASSIGN_OR_RETURN(Node * fused, AddFusedNode(g_, std::move(spec), *p.relu_grad, "fusing a max_pool gradient"));
    for (const Node* b : p.bias_grads) {
      Status refined = fused->RefineOutputShape(1, b->output_shapes()[0]);
      if (!refined.ok()) return refined.WithSpan(b->span());
    }
    return fused;
  }

  Graph& g_;
  const int n_;  // nodes before fusion; fused nodes come after
  const FusionScope scope_;
  FusionRewrite rewrite_;
  std::vector<Pair> pairs_;
  std::unordered_map<int, Node*> with_taps_;  // by the max_pool's id
};

}  // namespace

Result<FuseResult> FuseMaxPoolReluGrad(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  if (!ConvFusionEnabled()) return FuseResult{};
  PoolReluGradFuser fuser(g, fetches, targets);
  fuser.FindPairs();
  return fuser.Rewrite(fetches);
}

}  // namespace tfg
