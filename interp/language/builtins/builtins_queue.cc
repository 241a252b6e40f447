// Queue builtins: the queue ops with the `with container(...)` of where
// they are built, enqueue/dequeue with their queue's dtypes and shapes
// (checked while the graph is built), size(q) on a queue handle, and the
// queue runners.
#include <algorithm>

#include "interp/language/builtins/builtins.h"
#include "interp/runtime/queue_runner.h"

namespace tfg {
namespace {

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

bool IsQueueOp(const std::string& op) {
  return op == "fifo_queue" || op == "random_shuffle_queue" || op == "padding_fifo_queue";
}

// What a queue handle says about its queue, from the node that made it.
struct QueueInfo {
  Output handle;
  std::string name;
  std::vector<DType> types;
  std::vector<PartialShape> shapes;  // empty: any
};

Result<QueueInfo> QueueOf(const BoundArgs& args) {
  const Value& v = args[0];
  if (!v.is(ValueKind::kGraphTensor) || !IsQueueOp(v.graph_output().node->op_name())) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}(): the first argument must be a queue (made by fifo_queue, random_shuffle_queue "
                              "or padding_fifo_queue), got {}",
                              args.def->name, Describe(v)),
                  args.spans[0]);
  }
  QueueInfo q;
  q.handle = v.graph_output();
  const Node* node = q.handle.node;
  q.name = node->name();
  if (const auto* types = node->attr<std::vector<DType>>("dtypes")) q.types = *types;
  if (const auto* shapes = node->attr<std::vector<PartialShape>>("shapes")) q.shapes = *shapes;
  return q;
}

Status Fail(const BoundArgs& args, const SourceSpan& span, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, span);
}

std::optional<std::string> NodeName(const BoundArgs& args, size_t i) {
  if (i >= args.values.size() || !args[i].is(ValueKind::kString)) return std::nullopt;
  return args[i].as_string();
}

// ------------------------------------------------------------ queue ops

Result<Value> MakeQueue(BuiltinContext& ev, BoundArgs& args, const std::string& op) {
  CallArgs call = args.original;
  bool has_container = false;
  for (size_t i = 0; i < args.def->params.size(); ++i) {
    has_container |= args.def->params[i].name == "container" && args.given[i];
  }
  if (!has_container) {
    call.keywords.emplace_back("container", Value::Str(ev.scopes().container()));
    call.keyword_spans.push_back(args.span);
  }
  return ev.CallOpByName(op, std::move(call), args.span);
}

BuiltinDef QueueDef(const std::string& op, std::vector<BuiltinParam> params, const std::string& doc) {
  params.push_back(Opt("shared_name", Value::Str("")));
  params.push_back(Opt("container", Value()));
  params.push_back(Opt("name", Value()));
  return {op, std::move(params), doc, [op](BuiltinContext& ev, BoundArgs& a) { return MakeQueue(ev, a, op); }};
}

// -------------------------------------------------------------- enqueue

// A component converted to a graph tensor of the queue's dtype, its shape
// checked against the queue's (per element, or per slice for a batch).
Result<Output> Component(BuiltinContext& ev, const BoundArgs& args, const QueueInfo& q, size_t c, const Value& v,
                         bool batch) {
  const SourceSpan& span = args.spans[1];
  auto out = ev.ToOutput(v, q.types[c], span);
  if (!out.ok()) return Status(out.status()).Prepend(fmt::format("{}(): component {}: ", args.def->name, c));
  if (out->dtype() != q.types[c]) {
    return Fail(args, span, fmt::format("component {} is {}, but queue '{}' holds {}; convert it with cast(x, {})", c,
                                        DTypeName(out->dtype()), q.name, DTypeName(q.types[c]), DTypeName(q.types[c])));
  }
  PartialShape shape = out->shape();
  if (batch && shape.known_rank()) {
    if (shape.rank() == 0) return Fail(args, span, fmt::format("component {} is a scalar, not a batch", c));
    shape = PartialShape(std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end()));
  }
  if (!q.shapes.empty() && !shape.CompatibleWith(q.shapes[c])) {
    return Fail(args, span,
                fmt::format("component {} has {}shape {}, but queue '{}' holds {}", c, batch ? "element " : "",
                            shape.ToString(), q.name, q.shapes[c].ToString()));
  }
  return *out;
}

// The rank a host value has as a tensor: a list's nesting depth.
int HostRank(const Value& v) {
  // A loop, not recursion: the list may nest 100,000 deep. A list inside
  // itself counts once per level until the count passes any real rank.
  constexpr int kBeyondAnyRank = 1 << 20;
  int rank = 0;
  const Value* at = &v;
  while (at->is(ValueKind::kList) && rank < kBeyondAnyRank) {
    ++rank;
    const std::vector<Value>& items = at->as_list().items;
    if (items.empty()) return rank;
    at = &items[0];
  }
  return at->is(ValueKind::kTensor) ? rank + at->as_tensor().rank() : rank;
}

// The component values of enqueue(q, values): a list of one per
// component; with a single component also the value itself, so
// enqueue(q, x) and enqueue_many(files, ["a.txt", "b.txt"]) read naturally.
// A host list there is the component's data, unless it has one item of the
// rank the queue's component takes (enqueue(q, [1.0]) into a queue of
// scalars, enqueue_many(q, [[1.0, 2.0]]) likewise).
std::vector<Value> ComponentValues(const Value& values, const QueueInfo& q, bool many) {
  if (!values.is(ValueKind::kList)) return {values};
  const std::vector<Value>& items = values.as_list().items;
  if (q.types.size() != 1) return items;
  const bool names_graph = std::any_of(items.begin(), items.end(), [](const Value& v) { return v.is_graph(); });
  if (names_graph) return items;
  if (items.size() == 1 && !q.shapes.empty() && q.shapes[0].known_rank() &&
      HostRank(items[0]) == q.shapes[0].rank() + (many ? 1 : 0)) {
    return items;
  }
  return {values};
}

Result<Value> Enqueue(BuiltinContext& ev, BoundArgs& args, bool many) {
  TFG_ASSIGN_OR_RETURN(QueueInfo q, QueueOf(args));
  std::vector<Value> values = ComponentValues(args[1], q, many);
  if (values.size() != q.types.size()) {
    return Fail(args, args.spans[1],
                fmt::format("queue '{}' holds {} component{} per element, got {}", q.name, q.types.size(),
                            q.types.size() == 1 ? "" : "s", values.size()));
  }
  NodeSpec spec;
  spec.op = args.def->name;
  spec.inputs.push_back(q.handle);
  for (size_t c = 0; c < values.size(); ++c) {
    TFG_ASSIGN_OR_RETURN(Output out, Component(ev, args, q, c, values[c], many));
    spec.inputs.push_back(out);
  }
  spec.name = NodeName(args, 2).value_or(args.def->name);
  spec.span = args.span;
  TFG_ASSIGN_OR_RETURN(Node* node, ev.AddNode(std::move(spec)));
  return Value::Op(node);
}

// -------------------------------------------------------------- dequeue

Result<Value> Dequeue(BuiltinContext& ev, BoundArgs& args, bool batch) {
  TFG_ASSIGN_OR_RETURN(QueueInfo q, QueueOf(args));
  NodeSpec spec;
  spec.op = args.def->name;
  spec.inputs.push_back(q.handle);
  if (q.types.empty()) return Fail(args, args.spans[0], fmt::format("queue '{}' has no components", q.name));
  spec.attrs["component_types"] = q.types;
  spec.attrs["component_shapes"] = q.shapes;
  if (batch) {
    TFG_ASSIGN_OR_RETURN(int64_t n, IntArg(args, 1));
    if (n < 1) return Fail(args, args.spans[1], fmt::format("n must be at least 1, got {}", n));
    spec.attrs["n"] = n;
  }
  spec.name = NodeName(args, batch ? 2 : 1).value_or(args.def->name);
  spec.span = args.span;
  TFG_ASSIGN_OR_RETURN(Node* node, ev.AddNode(std::move(spec)));
  if (node->num_outputs() == 1) return Value::Graph(node->output(0));
  std::vector<Value> outs;
  for (int i = 0; i < node->num_outputs(); ++i) outs.push_back(Value::Graph(node->output(i)));
  return Value::NewList(std::move(outs));
}

// size(q) of a queue is its queue_size; of anything else, the size op.
Result<Value> Size(BuiltinContext& ev, BoundArgs& args) {
  const Value& v = args[0];
  const bool queue = v.is(ValueKind::kGraphTensor) && IsQueueOp(v.graph_output().node->op_name());
  return ev.CallOpByName(queue ? "queue_size" : "size", args.original, args.span);
}

// --------------------------------------------------------- queue runners

// close(q) nodes for the runner: one that lets pending enqueues finish
// (the runner ended on its own), one that cancels them (Stop).
Result<Node*> CloseNode(BuiltinContext& ev, const Output& handle, bool cancel_pending, const SourceSpan& span) {
  NodeSpec spec;
  spec.op = "close";
  spec.inputs.push_back(handle);
  spec.attrs["cancel_pending_enqueues"] = cancel_pending;
  spec.name = handle.node->name() + (cancel_pending ? "/runner_cancel" : "/runner_close");
  spec.span = span;
  BuildOptions opts;
  opts.apply_scope_name = false;
  opts.apply_deps = false;
  return ev.AddNode(std::move(spec), opts);
}

Result<Value> StartQueueRunner(BuiltinContext& ev, BoundArgs& args) {
  const Value& op = args[0];
  const bool is_enqueue = op.is(ValueKind::kOp) && (op.as_op()->op_name() == "enqueue" ||
                                                    op.as_op()->op_name() == "enqueue_many");
  if (!is_enqueue) {
    return Fail(args, args.spans[0], "needs an enqueue op (from enqueue(q, ...) or enqueue_many(q, ...)), got " +
                                         Describe(op));
  }
  TFG_ASSIGN_OR_RETURN(int64_t threads, IntArg(args, 1));
  if (threads < 1 || threads > 64) {
    return Fail(args, args.spans[1], fmt::format("threads must be in [1, 64], got {}", threads));
  }
  Node* enqueue = op.as_op();
  const Output handle = enqueue->inputs()[0];
  TFG_ASSIGN_OR_RETURN(Node* close, CloseNode(ev, handle, false, args.span));
  TFG_ASSIGN_OR_RETURN(Node* cancel, CloseNode(ev, handle, true, args.span));
  if (ev.options().check_only) return Value();
  QueueRunners::For(ev.session()).Start(enqueue, close, cancel, static_cast<int>(threads), args.span);
  return Value();
}

Result<Value> StopQueueRunners(BuiltinContext& ev, BoundArgs& args) {
  Status s = QueueRunners::Finish(ev.session());
  if (!s.ok()) return s.AddNote(args.span, "reported by this stop_queue_runners()");
  return Value();
}

const BuiltinRegistrar kQueueBuiltins({
    QueueDef("fifo_queue", {Req("capacity"), Req("dtypes"), Opt("shapes", Value())},
             "A first-in first-out queue of elements (one tensor per dtype); returns its handle. Built inside "
             "with container(\"c\"), reset(\"c\") drops it."),
    QueueDef("random_shuffle_queue",
             {Req("capacity"), Req("min_after_dequeue"), Req("dtypes"), Opt("shapes", Value()), Opt("seed", Value::Int(0))},
             "A queue that dequeues in random order, keeping min_after_dequeue elements back while open; returns "
             "its handle."),
    QueueDef("padding_fifo_queue", {Req("capacity"), Req("dtypes"), Req("shapes")},
             "A FIFO queue whose dequeue_many pads the ? dimensions of shapes to the batch's largest element."),
    {"enqueue", {Req("queue"), Req("values"), Opt("name", Value())},
     "An op adding one element (a list with one value per component, or the value of the only one).",
     [](BuiltinContext& ev, BoundArgs& a) { return Enqueue(ev, a, false); }},
    {"enqueue_many", {Req("queue"), Req("values"), Opt("name", Value())},
     "An op adding the slices along dimension 0 of the values as elements.",
     [](BuiltinContext& ev, BoundArgs& a) { return Enqueue(ev, a, true); }},
    {"dequeue", {Req("queue"), Opt("name", Value())},
     "One element: the tensor of the only component, else a list of them. OutOfRange once closed and empty.",
     [](BuiltinContext& ev, BoundArgs& a) { return Dequeue(ev, a, false); }},
    {"dequeue_many", {Req("queue"), Req("n"), Opt("name", Value())},
     "n elements stacked along a new dimension 0 (xb, yb = dequeue_many(q, 32)).",
     [](BuiltinContext& ev, BoundArgs& a) { return Dequeue(ev, a, true); }},
    {"dequeue_up_to", {Req("queue"), Req("n"), Opt("name", Value())},
     "Like dequeue_many, but a closed queue hands out its last, smaller batch.",
     [](BuiltinContext& ev, BoundArgs& a) { return Dequeue(ev, a, true); }},
    {"size", {Req("x"), Opt("out_type", Value())},
     "The number of elements of a tensor (a scalar of out_type, i32 by default), or of a queue: how many "
     "elements it holds now.",
     Size, false, true},
    {"start_queue_runner", {Req("enqueue_op"), Opt("threads", Value::Int(1))},
     "Starts threads that run enqueue_op until its queue is closed or its input runs out (then it closes the "
     "queue); errors are reported at the next run(). Stopped when the script ends.",
     StartQueueRunner},
    {"stop_queue_runners", {}, "Stops every queue runner (closing their queues) and waits for them.",
     StopQueueRunners},
});

}  // namespace
}  // namespace tfg
