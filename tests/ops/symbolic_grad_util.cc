#include "tests/ops/symbolic_grad_util.h"

#include <algorithm>

#include "interp/runtime/session.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/graph.h"

namespace tfg::test {
namespace {

Result<Node*> AddOp(Graph& g, const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
  return g.AddNode({op, std::move(in), {}, std::move(attrs), "", "", {}});
}

PartialShape FeedShape(const Tensor& t, FeedShapes shapes) {
  if (!IsFloat(t.dtype()) || shapes == FeedShapes::kStatic) return PartialShape(t.shape());
  if (shapes == FeedShapes::kUnknownDims) return PartialShape::UnknownOfRank(t.rank());
  return PartialShape::Unknown();
}

struct OpGraph {
  Graph g;
  std::vector<Output> inputs;
  Node* node = nullptr;
  std::vector<std::pair<Output, Tensor>> feeds;
};

Status Build(OpGraph& og, const std::string& op, const std::vector<Tensor>& inputs, const AttrMap& attrs,
             FeedShapes shapes) {
  for (const Tensor& t : inputs) {
    AttrMap attrs_p{{"dtype", t.dtype()}, {"shape", FeedShape(t, shapes)}};
    TFG_ASSIGN_OR_RETURN(Node * p, AddOp(og.g, "placeholder", {}, std::move(attrs_p)));
    og.inputs.push_back(p->output(0));
    og.feeds.emplace_back(p->output(0), t);
  }
  TFG_ASSIGN_OR_RETURN(og.node, AddOp(og.g, op, og.inputs, attrs));
  return Status::OK();
}

}  // namespace

Result<std::vector<Tensor>> SymbolicGradients(const std::string& op, const std::vector<Tensor>& inputs,
                                              const AttrMap& attrs, const Tensor& dy,
                                              const SymbolicGradOptions& options) {
  OpGraph og;
  TFG_RETURN_IF_ERROR(Build(og, op, inputs, attrs, options.shapes));
  std::vector<Output> xs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool wanted = options.wrt.empty() ? IsFloat(inputs[i].dtype())
                                            : std::find(options.wrt.begin(), options.wrt.end(),
                                                        static_cast<int>(i)) != options.wrt.end();
    if (wanted) xs.push_back(og.inputs[i]);
  }
  TFG_ASSIGN_OR_RETURN(Node * seed, AddOp(og.g, "constant", {}, {{"value", dy}, {"dtype", dy.dtype()}}));
  TFG_ASSIGN_OR_RETURN(std::vector<Output> grads,
                       AddGradients(og.g, {og.node->output(0)}, xs, {seed->output(0)}, {}));
  Session session(&og.g, {1, 1, 1});
  return session.Run(og.feeds, grads, {});
}

Result<std::vector<Tensor>> RunGraphOp(const std::string& op, const std::vector<Tensor>& inputs,
                                       const AttrMap& attrs) {
  OpGraph og;
  TFG_RETURN_IF_ERROR(Build(og, op, inputs, attrs, FeedShapes::kStatic));
  std::vector<Output> outs;
  for (int i = 0; i < og.node->num_outputs(); ++i) outs.push_back(og.node->output(i));
  Session session(&og.g, {1, 1, 1});
  return session.Run(og.feeds, outs, {});
}

}  // namespace tfg::test
