#include "interp/runtime/run_signature.h"

namespace tfg {

std::string DescribeNode(const Node& n) { return fmt::format("{} '{}'", n.op_name(), n.name()); }

bool InGraph(const Graph& g, const Node* n) {
  return n != nullptr && n->id() >= 0 && n->id() < g.num_nodes() && g.node(n->id()) == n;
}

Status CheckRunOutput(const Graph& g, const Output& o, const char* what) {
  if (!InGraph(g, o.node)) return InvalidArgument("a {} refers to a node that is not in this graph", what);
  if (o.index >= 0 && o.index < o.node->num_outputs()) return Status::OK();
  Status s = o.node->num_outputs() == 0
                 ? InvalidArgument("cannot {} {}: it has no outputs (run it as a target instead)", what,
                                   DescribeNode(*o.node))
                 : InvalidArgument("cannot {} output {} of {}: it has {} output(s)", what, o.index,
                                   DescribeNode(*o.node), o.node->num_outputs());
  return s.WithSpan(o.node->span());
}

Status FeedIndex::Init(const Graph& g, const std::vector<Output>& feeds) {
  for (size_t i = 0; i < feeds.size(); ++i) {
    TFG_RETURN_IF_ERROR(CheckRunOutput(g, feeds[i], "feed"));
    auto& slots = by_node_[feeds[i].node->id()];
    slots.resize(feeds[i].node->num_outputs(), -1);
    if (slots[feeds[i].index] >= 0) return InvalidArgument("{} is fed more than once", DescribeNode(*feeds[i].node));
    slots[feeds[i].index] = static_cast<int>(i);
  }
  return Status::OK();
}

}  // namespace tfg
