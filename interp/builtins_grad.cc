// grad(ys, xs, grad_ys=none): symbolic gradients (white paper §4.1) from
// the script. A variable may have several read nodes (one per `with deps`
// scope it was used in); its gradient is the sum over all of them.
#include "interp/builtins.h"
#include "ops/framework/gradients.h"

namespace tfg {
namespace {

// A single value or a list, as a list of values.
std::vector<Value> AsItems(const Value& v) {
  if (v.is(ValueKind::kList)) return v.as_list().items;
  return {v};
}

Result<std::vector<Output>> ToOutputs(Evaluator& ev, const Value& v, const SourceSpan& span) {
  std::vector<Output> out;
  for (const Value& item : AsItems(v)) {
    TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(item, std::nullopt, span));
    out.push_back(o);
  }
  return out;
}

// Every read node of a variable: the `variable` nodes sharing its name.
std::vector<Output> VariableReads(const Graph& g, const VariableInfo& var) {
  std::vector<Output> reads;
  for (const auto& node : g.nodes()) {
    if (node->op_name() != "variable") continue;
    const std::string* shared = node->attr<std::string>("shared_name");
    const std::string* container = node->attr<std::string>("container");
    if (shared && *shared == var.shared_name && container && *container == var.container) {
      reads.push_back(node->output(0));
    }
  }
  return reads;
}

Result<Value> Grad(Evaluator& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<Output> ys, ToOutputs(ev, args[0], args.spans[0]));
  std::vector<Output> grad_ys;
  if (!args[2].is_none()) {
    TFG_ASSIGN_OR_RETURN(grad_ys, ToOutputs(ev, args[2], args.spans[2]));
  }
  // Each x expands to the outputs whose gradients are summed for it.
  std::vector<Value> items = AsItems(args[1]);
  std::vector<Output> xs;
  std::vector<std::pair<size_t, size_t>> ranges;
  for (const Value& item : items) {
    size_t begin = xs.size();
    if (item.is(ValueKind::kVariable)) {
      for (const Output& r : VariableReads(ev.graph(), *item.as_variable())) xs.push_back(r);
    } else {
      TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(item, std::nullopt, args.spans[1]));
      xs.push_back(o);
    }
    ranges.emplace_back(begin, xs.size());
  }
  TFG_ASSIGN_OR_RETURN(std::vector<Output> grads, AddGradientsPartial(ev.graph(), ys, xs, grad_ys, args.span));
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); ++i) {
    Output total;
    for (size_t k = ranges[i].first; k < ranges[i].second; ++k) {
      if (!grads[k].node) continue;
      if (!total.node) {
        total = grads[k];
        continue;
      }
      NodeSpec spec{"add", {total, grads[k]}, {}, {}, "gradients/sum", "", args.span};
      TFG_ASSIGN_OR_RETURN(Node * n, ev.AddNode(std::move(spec)));
      total = n->output(0);
    }
    if (!total.node) {
      std::string what = items[i].is_graph() ? items[i].graph_output().node->name() : Describe(items[i]);
      return Status(Code::kInvalidArgument,
                    fmt::format("grad: the result does not depend on '{}'; no gradient flows to it", what),
                    args.span);
    }
    out.push_back(Value::Graph(total));
  }
  if (!args[1].is(ValueKind::kList)) return out[0];
  return Value::NewList(std::move(out));
}

const BuiltinRegistrar kGradBuiltins({
    {"grad",
     {BuiltinParam{"ys", std::nullopt}, BuiltinParam{"xs", std::nullopt}, BuiltinParam{"grad_ys", Value()}},
     "Symbolic gradients: d(sum of ys)/dx for each x (a tensor or a variable), added to the graph as backprop "
     "nodes. A single x gives a single tensor, a list gives a list. grad_ys seeds the backward pass (default: "
     "ones).",
     Grad},
});

}  // namespace
}  // namespace tfg
