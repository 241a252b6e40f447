// while_loop (white paper §4.4): the loop variables enter a frame of their
// own; each iteration merges them (from enter, then from next_iteration),
// evaluates the condition into loop_cond, switches them into the body or
// out through exit, and feeds the body's results to the next iteration.
// The executor runs up to parallel_iterations iterations at once. grad()
// reads the loop back from its nodes, so their layout is a contract, drawn
// in ops/core/control_flow.h (namespace while_loop).
#include "interp/language/builtins/builtins.h"
#include "interp/runtime/session.h"
#include "interp/language/control_flow.h"
#include "interp/language/op_call.h"
#include "ops/core/control_flow.h"

namespace tfg {
namespace {

Result<Node*> Build(BuiltinContext& ev, const std::string& op, std::vector<Output> inputs, AttrMap attrs,
                    const SourceSpan& span) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.name = "while/" + op;
  spec.span = span;
  return ev.AddNode(std::move(spec));
}

// The loop being built: one entry per loop variable (plus the iteration
// counter max_iterations adds, last).
struct Loop {
  std::vector<Node*> enters, merges, switches;
  std::vector<Output> exits;
  size_t user_vars = 0;
};

Status CheckBodyResult(const Loop& loop, size_t i, const Output& out, const SourceSpan& span) {
  const Output merged = loop.merges[i]->output(0);
  if (out.dtype() != merged.dtype()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("while_loop: loop variable {} is {} on entry but the body returns {}", i,
                              DTypeName(merged.dtype()), DTypeName(out.dtype())),
                  span);
  }
  if (!merged.shape().Merge(out.shape()).ok()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("while_loop: loop variable {} has shape {} but the body returns {}; to let its "
                              "shape change across iterations, give a shape that fits both in shape_invariants=",
                              i, merged.shape().ToString(), out.shape().ToString()),
                  span);
  }
  return Status::OK();
}

// Condition, loop_cond and switches; the body's arguments are the
// switches' true outputs.
Result<Output> BuildCondition(BuiltinContext& ev, Loop& loop, const Value& cond_fn, const Value& max_iterations,
                              const SourceSpan& span) {
  CallArgs args;
  for (size_t i = 0; i < loop.user_vars; ++i) args.Add(Value::Graph(loop.merges[i]->output(0)), span);
  TFG_ASSIGN_OR_RETURN(Value pred, ev.Call(cond_fn, std::move(args), span));
  if (!max_iterations.is_none()) {
    TFG_ASSIGN_OR_RETURN(Value below, ev.Binary(ast::BinaryOp::kLt, Value::Graph(loop.merges.back()->output(0)),
                                                max_iterations, span));
    TFG_ASSIGN_OR_RETURN(pred, ev.Binary(ast::BinaryOp::kAnd, pred, below, span));
  }
  TFG_ASSIGN_OR_RETURN(Output p, ev.ToOutput(pred, DType::kBool, span));
  if (p.dtype() != DType::kBool || (p.shape().known_rank() && p.shape().num_elements() > 1)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("while_loop: the condition must return a single bool, got {} of shape {}",
                              DTypeName(p.dtype()), p.shape().ToString()),
                  span);
  }
  TFG_ASSIGN_OR_RETURN(Node * loop_cond, Build(ev, kLoopCondOp, {p}, {}, span));
  return loop_cond->output(0);
}

Status BuildBody(BuiltinContext& ev, Loop& loop, const Value& body_fn, bool single, const SourceSpan& span) {
  CallArgs args;
  for (size_t i = 0; i < loop.user_vars; ++i) {
    args.Add(Value::Graph(loop.switches[i]->output(while_loop::kSwitchToBody)), span);
  }
  TFG_ASSIGN_OR_RETURN(Value result, ev.Call(body_fn, std::move(args), span));
  std::vector<Value> items = result.is(ValueKind::kList) ? result.as_list().items : std::vector<Value>{result};
  if (single && result.is(ValueKind::kList) && items.size() != 1) items = {result};
  if (items.size() != loop.user_vars) {
    return Status(Code::kInvalidArgument,
                  fmt::format("while_loop: the body returns {} value(s) for {} loop variable(s)", items.size(),
                              loop.user_vars),
                  span);
  }
  if (loop.merges.size() > loop.user_vars) {  // the iteration counter
    const Value count = Value::Graph(loop.switches.back()->output(while_loop::kSwitchToBody));
    TFG_ASSIGN_OR_RETURN(Value next, ev.Binary(ast::BinaryOp::kAdd, count, Value::Int(1), span));
    items.push_back(next);
  }
  for (size_t i = 0; i < items.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(Output out, ev.ToOutput(items[i], loop.merges[i]->output(0).dtype(), span));
    TFG_RETURN_IF_ERROR(CheckBodyResult(loop, i, out, span));
    TFG_ASSIGN_OR_RETURN(Node * next, Build(ev, kNextIterationOp, {out}, {}, span));
    std::unique_lock<std::shared_mutex> lock(ev.session().graph_mutex());
    TFG_RETURN_IF_ERROR(loop.merges[i]->ReplaceInput(while_loop::kMergeFromNextIteration, next->output(0)));
  }
  return Status::OK();
}

}  // namespace

// shape_invariants=[shape or none per loop variable]: the shape each
// variable keeps in every iteration (TensorFlow's shape_invariants), for a
// variable that grows or shrinks; none keeps its shape on entry.
Result<std::vector<AttrMap>> MergeAttrs(const Value& invariants, size_t user_vars, size_t vars,
                                        const SourceSpan& span) {
  std::vector<AttrMap> attrs(vars);
  if (invariants.is_none()) return attrs;
  if (!invariants.is(ValueKind::kList) || invariants.as_list().items.size() != user_vars) {
    return Status(Code::kInvalidArgument,
                  fmt::format("while_loop: shape_invariants must be a list with a shape (or none) for each of the {} "
                              "loop variable(s)",
                              user_vars),
                  span);
  }
  const OpDef* merge = OpRegistry::Global().Find(kMergeOp);
  const AttrDef shape{"shape_invariants", AttrType::kShape, std::nullopt, {}, false, ""};
  for (size_t i = 0; i < user_vars; ++i) {
    const Value& v = invariants.as_list().items[i];
    if (v.is_none()) continue;
    auto converted = ConvertAttr(*merge, shape, v);
    if (!converted.ok()) {
      Status s = converted.status();
      s.WithSpan(span);
      return s;
    }
    attrs[i]["shape_invariant"] = std::vector<PartialShape>{std::get<PartialShape>(*converted)};
  }
  return attrs;
}

Result<Value> WhileLoop(BuiltinContext& ev, BoundArgs& args) {
  const SourceSpan& span = args.span;
  TFG_ASSIGN_OR_RETURN(int64_t parallel, IntArg(args, 3));
  if (parallel < 1) {
    return Status(Code::kInvalidArgument, fmt::format("while_loop: parallel_iterations must be >= 1, got {}", parallel),
                  args.spans[3]);
  }
  const bool single = !args[2].is(ValueKind::kList);
  std::vector<Value> vars = single ? std::vector<Value>{args[2]} : args[2].as_list().items;
  if (vars.empty()) return Status(Code::kInvalidArgument, "while_loop: loop_vars is empty", args.spans[2]);
  const Value& max_iterations = args[4];
  if (!max_iterations.is_none()) vars.push_back(Value::Int(0));

  Loop loop;
  loop.user_vars = single ? 1 : args[2].as_list().items.size();
  const std::string frame = ev.scopes().ScopedName("while") + "#" + std::to_string(ev.NextCallCount("while_loop"));
  for (const Value& v : vars) {
    TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(v, std::nullopt, span));
    AttrMap attrs{{while_loop::kFrameNameAttr, frame},
                  {while_loop::kIsConstantAttr, false},
                  {while_loop::kParallelIterationsAttr, parallel}};
    TFG_ASSIGN_OR_RETURN(Node * enter, Build(ev, kEnterOp, {o}, attrs, span));
    loop.enters.push_back(enter);
  }
  auto ctx = ControlFlowContext::While(ev.control_flow(), frame, parallel);
  ctx->SetEnters(loop.enters);
  for (Node* e : loop.enters) ctx->AddValue(e->output(0));
  TFG_ASSIGN_OR_RETURN(std::vector<AttrMap> merge_attrs, MergeAttrs(args[5], loop.user_vars, vars.size(), args.spans[5]));
  InContext in(ev, ctx.get());
  for (size_t i = 0; i < loop.enters.size(); ++i) {
    Node* e = loop.enters[i];
    TFG_ASSIGN_OR_RETURN(Node * merge, Build(ev, kMergeOp, {e->output(0), e->output(0)}, merge_attrs[i], span));
    loop.merges.push_back(merge);
  }
  ctx->SetPivotSource(loop.merges[0]->output(0));
  TFG_ASSIGN_OR_RETURN(Output pred, BuildCondition(ev, loop, args[0], max_iterations, span));
  for (Node* m : loop.merges) {
    TFG_ASSIGN_OR_RETURN(Node * sw, Build(ev, kSwitchOp, {m->output(0), pred}, {}, span));
    loop.switches.push_back(sw);
    TFG_ASSIGN_OR_RETURN(Node * exit, Build(ev, kExitOp, {sw->output(while_loop::kSwitchToExit)}, {}, span));
    loop.exits.push_back(exit->output(0));
  }
  ctx->SetPivotSource(loop.switches[0]->output(while_loop::kSwitchToBody));
  TFG_RETURN_IF_ERROR(BuildBody(ev, loop, args[1], single, span));
  std::vector<Value> results;
  for (size_t i = 0; i < loop.user_vars; ++i) results.push_back(Value::Graph(loop.exits[i]));
  return single ? results[0] : Value::NewList(std::move(results));
}

}  // namespace tfg
