// grad(ys, xs, grad_ys=none): symbolic gradients (white paper §4.1) from
// the script, and sparse_gradient(g), which optimizers use to keep an
// embedding's gradient sparse. A variable may have several read nodes (one per `with deps`
// scope it was used in); its gradient is the sum over all of them.
#include "interp/language/builtins/builtins.h"
#include "interp/runtime/session.h"
#include "ops/autodiff/gradient_scope.h"
#include "ops/autodiff/gradients.h"

namespace tfg {
namespace {

// A single value or a list, as a list of values.
std::vector<Value> AsItems(const Value& v) {
  if (v.is(ValueKind::kList)) return v.as_list().items;
  return {v};
}

Result<std::vector<Output>> ToOutputs(BuiltinContext& ev, const Value& v, const SourceSpan& span) {
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

// What `unconnected=` asks for an x the ys do not depend on: an error
// naming it (the default), none (minimize skips such variables, as
// TensorFlow's does), or zeros of x's shape.
enum class UnconnectedMode { kError, kNone, kZero };

// Read before any node is built, so a bad value fails whatever the graph.
Result<UnconnectedMode> ReadUnconnected(const BoundArgs& args) {
  const Value& mode = args[3];
  if (mode.is(ValueKind::kString)) {
    if (mode.as_string() == "error") return UnconnectedMode::kError;
    if (mode.as_string() == "none") return UnconnectedMode::kNone;
    if (mode.as_string() == "zero") return UnconnectedMode::kZero;
  }
  std::string got = mode.is(ValueKind::kString) ? "\"" + mode.as_string() + "\"" : Describe(mode);
  return Status(Code::kInvalidArgument,
                fmt::format("grad: unconnected= must be \"error\", \"none\" or \"zero\", got {}", got), args.spans[3]);
}

Result<Value> Unconnected(BuiltinContext& ev, const BoundArgs& args, UnconnectedMode mode, const Value& x) {
  switch (mode) {
    case UnconnectedMode::kNone: return Value();
    case UnconnectedMode::kZero: {
      TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(x, std::nullopt, args.spans[1]));
      // As TensorFlow's zeros_like: a static shape makes zeros that do not
      // read x, so a placeholder x need not be fed to fetch them.
      NodeSpec spec{"zeros_like", {o}, {}, {}, GradientScope::Current() + "/zeros", "", args.span};
      if (o.shape().fully_defined()) {
        spec = NodeSpec{"zeros", {}, {}, {}, GradientScope::Current() + "/zeros", "", args.span};
        spec.attrs["shape"] = o.shape().dims();
        spec.attrs["dtype"] = o.dtype();
      }
      TFG_ASSIGN_OR_RETURN(Node * n, ev.AddNode(std::move(spec)));
      return Value::Graph(n->output(0));
    }
    case UnconnectedMode::kError: break;
  }
  std::string what = x.is_graph() ? x.graph_output().node->name() : Describe(x);
  return Status(Code::kInvalidArgument,
                fmt::format("grad: the result does not depend on '{}'; no gradient flows to it", what), args.span);
}

Result<Value> Grad(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(UnconnectedMode unconnected, ReadUnconnected(args));
  // Each call's nodes in a scope of their own inside the enclosing one, as
  // TensorFlow names them: gradients/, gradients_1/, s/gradients/.
  GradientScope naming(ev.scopes().ScopedName(ev.scopes().UniqueScope(ev.graph(), "gradients")));
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
  std::unique_lock<std::shared_mutex> graph_lock(ev.session().graph_mutex());
  TFG_ASSIGN_OR_RETURN(std::vector<Output> grads, AddGradientsPartial(ev.graph(), ys, xs, grad_ys, args.span));
  graph_lock.unlock();
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); ++i) {
    Output total;
    for (size_t k = ranges[i].first; k < ranges[i].second; ++k) {
      if (!grads[k].node) continue;
      if (!total.node) {
        total = grads[k];
        continue;
      }
      NodeSpec spec{"add", {total, grads[k]}, {}, {}, GradientScope::Current() + "/sum", "", args.span};
      TFG_ASSIGN_OR_RETURN(Node * n, ev.AddNode(std::move(spec)));
      total = n->output(0);
    }
    if (!total.node && unconnected == UnconnectedMode::kError && ranges[i].first < ranges[i].second) {
      // The full differentiation says why: no dependence at all, or an op
      // on every path that passes no gradient (named in a note).
      std::vector<Output> x(xs.begin() + ranges[i].first, xs.begin() + ranges[i].second);
      std::unique_lock<std::shared_mutex> lock(ev.session().graph_mutex());
      auto why = AddGradients(ev.graph(), ys, x, grad_ys, args.span);
      if (!why.ok()) return why.status();
    }
    if (!total.node) {
      TFG_ASSIGN_OR_RETURN(Value missing, Unconnected(ev, args, unconnected, items[i]));
      out.push_back(std::move(missing));
      continue;
    }
    out.push_back(Value::Graph(total));
  }
  if (!args[1].is(ValueKind::kList)) return out[0];
  return Value::NewList(std::move(out));
}

// An embedding's gradient (gather_grad along axis 0) as its rows and their
// indices, so an optimizer can update just those rows (OSDI §4.2); none for
// any other gradient.
Result<Value> SparseGradient(BuiltinContext&, BoundArgs& args) {
  if (!args[0].is_graph()) return Value();
  const Node* node = args[0].graph_output().node;
  const int64_t* axis = node->attr<int64_t>("axis");
  if (node->op_name() != "gather_grad" || !axis || *axis != 0 || node->control_inputs().size() > 0) return Value();
  return Value::NewList({Value::Graph(node->inputs()[0]), Value::Graph(node->inputs()[1])});
}

const BuiltinRegistrar kGradBuiltins({
    {"grad",
     {BuiltinParam{"ys", std::nullopt}, BuiltinParam{"xs", std::nullopt}, BuiltinParam{"grad_ys", Value()},
      BuiltinParam{"unconnected", Value::Str("error")}},
     "Symbolic gradients: d(sum of ys)/dx for each x (a tensor or a variable), added to the graph as backprop "
     "nodes. A single x gives a single tensor, a list gives a list. grad_ys seeds the backward pass (default: "
     "ones). For an x the ys do not depend on, unconnected=\"error\" (default) fails naming it, \"none\" "
     "gives none and \"zero\" gives zeros of x's shape.",
     Grad},
    {"sparse_gradient",
     {BuiltinParam{"g", std::nullopt}},
     "[values, indices] when g is an embedding's gradient (from gather along axis 0), so an optimizer can update "
     "only the rows named by indices (scatter_sub, sparse_apply_*); none for any other value.",
     SparseGradient},
});

}  // namespace
}  // namespace tfg
