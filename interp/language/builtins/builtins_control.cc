// In-graph control flow (white paper §4.4): cond, case and while_loop build
// switch/merge and enter/exit/next_iteration nodes around the nodes their
// functions build, so the choice and the looping happen in the executor,
// not on the host. With a host predicate cond just calls one function.
#include "interp/language/builtins/builtins.h"
#include "interp/language/control_flow.h"
#include "interp/language/value_convert.h"
#include "ops/core/control_flow.h"

namespace tfg {

// interp/language/builtins/builtins_while.cc
Result<Value> WhileLoop(BuiltinContext& ev, BoundArgs& args);

namespace {

std::vector<Value> Items(const Value& v, bool& is_list) {
  is_list = v.is(ValueKind::kList);
  if (is_list) return v.as_list().items;
  return {v};
}

Value Pack(std::vector<Value> items, bool is_list) {
  return is_list ? Value::NewList(std::move(items)) : items[0];
}

Result<Node*> Build(BuiltinContext& ev, const std::string& op, std::vector<Output> inputs, AttrMap attrs,
                    const SourceSpan& span, const std::string& name) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.name = name;
  spec.span = span;
  return ev.AddNode(std::move(spec));
}

// A predicate as a graph bool scalar.
Result<Output> Predicate(BuiltinContext& ev, const Value& v, const char* who, const SourceSpan& span) {
  TFG_ASSIGN_OR_RETURN(Output p, ev.ToOutput(v, DType::kBool, span));
  if (p.dtype() != DType::kBool) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: the predicate must be a bool tensor, got {}", who, DTypeName(p.dtype())), span);
  }
  const PartialShape& s = p.shape();
  if (s.known_rank() && s.num_elements() > 1) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: the predicate must be a single bool, got shape {}", who, s.ToString()), span);
  }
  return p;
}

// A branch's value as a tensor inside its context. An op (run for its
// effect) becomes `true` once it has run, so the branch can return it.
Result<Output> BranchOutput(BuiltinContext& ev, const Value& v, std::optional<DType> dtype, const SourceSpan& span) {
  if (!v.is(ValueKind::kOp)) {
    // A tensor from outside (the branch returns an input as it is) is
    // switched in like any other, so it is dead when the branch is.
    TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(v, dtype, span));
    return ev.control_flow()->Capture(ev, o, span);
  }
  NodeSpec spec;
  spec.op = "constant";
  spec.attrs["value"] = Tensor::Scalar<bool>(true);
  spec.attrs["dtype"] = DType::kBool;
  spec.control_inputs = {v.as_op()};
  spec.span = span;
  TFG_ASSIGN_OR_RETURN(Node * n, ev.AddNode(std::move(spec)));
  return n->output(0);
}

std::optional<DType> GraphDType(const Value& v) {
  if (v.is(ValueKind::kGraphTensor)) return v.as_output().dtype();
  if (v.is(ValueKind::kVariable)) return v.as_variable()->dtype();
  return std::nullopt;
}

// The graph cond: each function runs in a context of its own; their
// results are merged pairwise.
Result<Value> GraphCond(BuiltinContext& ev, Output pred, const Value& true_fn, const Value& false_fn,
                        const SourceSpan& span) {
  std::unique_ptr<ControlFlowContext> ctx[2] = {ControlFlowContext::Cond(ev.control_flow(), pred, 0),
                                                ControlFlowContext::Cond(ev.control_flow(), pred, 1)};
  Value result[2];
  for (int b : {1, 0}) {
    InContext in(ev, ctx[b].get());
    TFG_ASSIGN_OR_RETURN(result[b], ev.Call(b ? true_fn : false_fn, CallArgs{}, span));
  }
  bool is_list[2];
  std::vector<Value> items[2] = {Items(result[0], is_list[0]), Items(result[1], is_list[1])};
  if (items[0].size() != items[1].size() || is_list[0] != is_list[1] || result[0].is_none() != result[1].is_none()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("cond: the branches return different things: {} (true) and {} (false)",
                              Describe(result[1]), Describe(result[0])),
                  span);
  }
  if (result[0].is_none()) {
    return Status(Code::kInvalidArgument,
                  "cond: the branches return nothing; return a tensor, or the op to run, from each", span);
  }
  std::vector<Value> merged;
  for (size_t i = 0; i < items[0].size(); ++i) {
    Output out[2];
    for (int b : {1, 0}) {
      InContext in(ev, ctx[b].get());
      std::optional<DType> hint = GraphDType(items[b][i]) ? std::nullopt : GraphDType(items[1 - b][i]);
      TFG_ASSIGN_OR_RETURN(out[b], BranchOutput(ev, items[b][i], hint, span));
    }
    if (out[0].dtype() != out[1].dtype()) {
      return Status(Code::kInvalidArgument,
                    fmt::format("cond: value {} is {} in the true branch but {} in the false one", i,
                                DTypeName(out[1].dtype()), DTypeName(out[0].dtype())),
                    span);
    }
    AttrMap attrs;
    attrs["pred"] = pred.name();
    TFG_ASSIGN_OR_RETURN(Node * merge, Build(ev, kMergeOp, {out[0], out[1]}, attrs, span, "cond/merge"));
    merged.push_back(Value::Graph(merge->output(0)));
  }
  return Pack(std::move(merged), is_list[0]);
}

Result<Value> Cond(BuiltinContext& ev, BoundArgs& args) {
  if (!args[0].is_graph()) {
    TFG_ASSIGN_OR_RETURN(bool p, Truthy(args[0]));
    return ev.Call(p ? args[1] : args[2], CallArgs{}, args.span);
  }
  TFG_ASSIGN_OR_RETURN(Output pred, Predicate(ev, args[0], "cond", args.spans[0]));
  return GraphCond(ev, pred, args[1], args[2], args.span);
}

// Graph branches nest one cond inside the next, and each level is a few
// frames of the evaluator's stack: past this many, a clear error instead of
// a stack overflow (TensorFlow's switch_case is one op; tfg has no such op
// yet).
constexpr size_t kMaxGraphCaseBranches = 1000;

// case([[pred, fn], ...], default): the first pair whose predicate holds;
// case(index, [fn0, fn1, ...]): branch `index`, the last one when out of
// range (TensorFlow's switch_case). Both are nested conds.
Result<Value> CasePairs(BuiltinContext& ev, const std::vector<Value>& pairs, size_t k, const Value& fallback,
                        const SourceSpan& span) {
  // Host predicates are decided here, in a loop; the first graph predicate
  // starts the nested conds.
  for (;; ++k) {
    if (k == pairs.size()) {
      if (fallback.is_none()) {
        return Status(Code::kInvalidArgument, "case: no predicate held and no default= was given", span);
      }
      return ev.Call(fallback, CallArgs{}, span);
    }
    const Value& pair = pairs[k];
    if (!pair.is(ValueKind::kList) || pair.as_list().items.size() != 2) {
      return Status(Code::kInvalidArgument,
                    fmt::format("case: each branch is [predicate, fn], got {}", Describe(pair)), span);
    }
    const Value& pred = pair.as_list().items[0];
    if (pred.is_graph()) break;
    TFG_ASSIGN_OR_RETURN(bool p, Truthy(pred));
    if (p) return ev.Call(pair.as_list().items[1], CallArgs{}, span);
  }
  if (pairs.size() - k > kMaxGraphCaseBranches) {
    return Status(Code::kUnimplemented,
                  fmt::format("case: {} branches with graph predicates; at most {} are supported yet",
                              pairs.size() - k, kMaxGraphCaseBranches),
                  span);
  }
  const Value& pred = pairs[k].as_list().items[0];
  const Value& fn = pairs[k].as_list().items[1];
  TFG_ASSIGN_OR_RETURN(Output p, Predicate(ev, pred, "case", span));
  if (k + 1 == pairs.size() && fallback.is_none()) return ev.Call(fn, CallArgs{}, span);
  // The rest of the cases, as the false branch: a builtin closure over them.
  BuiltinDef rest{"case", {}, "", [&pairs, k, &fallback](BuiltinContext& e, BoundArgs& a) {
                    return CasePairs(e, pairs, k + 1, fallback, a.span);
                  }};
  return GraphCond(ev, p, fn, Value::Builtin(&rest, rest.name), span);
}

Result<Value> CaseIndex(BuiltinContext& ev, const Value& index, const std::vector<Value>& fns, const SourceSpan& span) {
  if (fns.empty()) return Status(Code::kInvalidArgument, "case: the list of branches is empty", span);
  if (!index.is_graph()) {
    TFG_ASSIGN_OR_RETURN(Tensor t, ToTensor(index, DType::kI64));
    int64_t i = t.num_elements() == 1 ? t.data<int64_t>()[0] : -1;
    return ev.Call(fns[i >= 0 && i < static_cast<int64_t>(fns.size()) ? i : fns.size() - 1], CallArgs{}, span);
  }
  std::vector<Value> pairs;
  for (size_t i = 0; i + 1 < fns.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(Value eq, ev.Binary(ast::BinaryOp::kEq, index, Value::Int(static_cast<int64_t>(i)), span));
    pairs.push_back(Value::NewList({eq, fns[i]}));
  }
  return CasePairs(ev, pairs, 0, fns.back(), span);
}

Result<Value> Case(BuiltinContext& ev, BoundArgs& args) {
  if (args[0].is(ValueKind::kList)) return CasePairs(ev, args[0].as_list().items, 0, args[2], args.span);
  if (!args[1].is(ValueKind::kList)) {
    return Status(Code::kInvalidArgument,
                  "case takes a list of [predicate, fn] pairs, or an index and a list of functions", args.span);
  }
  return CaseIndex(ev, args[0], args[1].as_list().items, args.span);
}


BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

static BuiltinRegistrar control_builtins({
    {"cond",
     {Req("pred"), Req("true_fn"), Req("false_fn")},
     "cond(pred, fn() {...}, fn() {...}): the value of true_fn when pred holds, else of false_fn, chosen in the "
     "graph (switch/merge); only the chosen branch runs. Both must return the same number of tensors, of the "
     "same dtypes. With a host bool, just calls one.",
     Cond},
    {"case",
     {Req("branches"), Opt("fns", Value()), Opt("default", Value())},
     "case([[pred, fn], ...], default=fn): the value of the first fn whose pred holds, else of default; "
     "case(index, [fn0, fn1, ...]): the value of fn<index> (the last when out of range). Nested conds.",
     Case},
    {"while_loop",
     {Req("cond"), Req("body"), Req("loop_vars"), Opt("parallel_iterations", Value::Int(10)),
      Opt("max_iterations", Value()), Opt("shape_invariants", Value())},
     "while_loop(fn(i, s) { i < n }, fn(i, s) { [i + 1, s + i] }, [0, 0]): runs body while cond holds, in the "
     "graph (enter/merge/switch/next_iteration/exit); returns the final loop variables. Up to "
     "parallel_iterations iterations run at once; max_iterations stops it early; shape_invariants=[shape or none, "
     "...] lets a loop variable change shape within the one given.",
     WhileLoop},
});

}  // namespace
}  // namespace tfg
