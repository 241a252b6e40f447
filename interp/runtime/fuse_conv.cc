#include "interp/runtime/fuse_conv.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "interp/runtime/fusion_scope.h"
#include "ops/math/fused/member_spans.h"

namespace tfg {
namespace {

constexpr char kFusedOp[] = "conv2d_bias_activation";

// A conv2d -> bias_add [-> relu] chain found in the graph.
struct Chain {
  Node* conv = nullptr;
  Node* bias_add = nullptr;
  Node* relu = nullptr;  // null: activation "none"
  Node* last() const { return relu != nullptr ? relu : bias_add; }
};

class ConvFuser {
 public:
  ConvFuser(Graph& g, const std::vector<Output>& fetches, const std::vector<Node*>& targets)
      : g_(g), n_(g.num_nodes()), scope_(g, fetches, targets), rewrite_(n_) {}

  // Chains in conv2d id order: a chain whose input is an earlier chain's
  // last node reads that chain's fused node.
  void FindChains() {
    for (int id = 0; id < n_; ++id) {
      Chain c;
      if (Match(*g_.node(id), c)) {
        for (Node* m : {c.conv, c.bias_add, c.relu}) {
          if (m != nullptr) rewrite_.AddMember(*m);
        }
        chains_.push_back(c);
      }
    }
  }

  Result<FuseResult> Rewrite(std::vector<Output>& fetches) {
    FuseResult result;
    for (const Chain& c : chains_) {
      TFG_ASSIGN_OR_RETURN(Node * fused, AddFused(c));
      rewrite_.Replace(*c.last(), fused->output(0));
      ++result.groups;
      result.members += c.relu != nullptr ? 3 : 2;
    }
    TFG_RETURN_IF_ERROR(rewrite_.RedirectUses(g_, fetches));
    return result;
  }

 private:
  // A node the chain may take: f32 out, not blocked, on the conv's device.
  bool Takes(const Node& n, const char* op, const Node& conv) const {
    return n.op_name() == op && !scope_.blocked[n.id()] && n.id() < n_ && n.num_outputs() == 1 &&
           n.output_types()[0] == DType::kF32 && OnSameDevice(n, conv);
  }

  // The only user of `n`'s value (through input `index` of it), or null
  // when it has others, is fetched, or has none.
  const Node* SoleUser(const Node& n, int index) const {
    const auto& users = scope_.users[n.id()];
    if (scope_.fetched[n.id()] || users.size() != 1) return nullptr;
    const Node* u = users.front();
    return u->inputs()[index].node == &n ? u : nullptr;
  }

  bool Match(Node& conv, Chain& c) const {
    if (!Takes(conv, "conv2d", conv) || conv.inputs().size() != 2) return false;
    const Node* bias_add = SoleUser(conv, 0);
    if (bias_add == nullptr || !Takes(*bias_add, "bias_add", conv) || bias_add->inputs().size() != 2) return false;
    c.conv = &conv;
    c.bias_add = g_.node(bias_add->id());
    const Node* relu = SoleUser(*bias_add, 0);
    if (relu != nullptr && Takes(*relu, "relu", conv) && relu->inputs().size() == 1) c.relu = g_.node(relu->id());
    return true;
  }

  Result<Node*> AddFused(const Chain& c) {
    const Node& last = *c.last();
    NodeSpec spec;
    spec.op = kFusedOp;
    spec.inputs = {rewrite_.Mapped(c.conv->inputs()[0]), rewrite_.Mapped(c.conv->inputs()[1]),
                   rewrite_.Mapped(c.bias_add->inputs()[1])};
    spec.attrs = c.conv->attrs();
    spec.attrs["activation"] = std::string(c.relu != nullptr ? "relu" : "none");
    std::vector<int64_t> spans = {fused::InternSpan(c.conv->span()), fused::InternSpan(c.bias_add->span())};
    if (c.relu != nullptr) spans.push_back(fused::InternSpan(c.relu->span()));
    spec.attrs["spans"] = spans;
    spec.span = last.span();
    return AddFusedNode(g_, std::move(spec), last, "fusing a convolution");
  }

  Graph& g_;
  const int n_;  // nodes before fusion; fused nodes come after
  const FusionScope scope_;
  FusionRewrite rewrite_;
  std::vector<Chain> chains_;
};

}  // namespace

bool ConvFusionEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TFG_FUSE_CONV");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

Result<FuseResult> FuseConvBiasActivation(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets) {
  if (!ConvFusionEnabled()) return FuseResult{};
  ConvFuser fuser(g, fetches, targets);
  fuser.FindChains();
  return fuser.Rewrite(fetches);
}

}  // namespace tfg
