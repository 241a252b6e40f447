// Graph builtins: constants, variables and their updates, init/reset, group,
// and the contexts `with` takes (device, scope, deps, container).
#include <deque>
#include <optional>
#include <set>
#include <vector>

#include "interp/language/builtins/builtins.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

Status Fail(const BoundArgs& args, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.span);
}

Result<std::optional<DType>> OptionalDType(const BoundArgs& args, size_t i) {
  if (args[i].is_none()) return std::optional<DType>();
  if (args[i].is(ValueKind::kDType)) return std::optional<DType>(args[i].as_dtype());
  return Status(Code::kInvalidArgument,
                fmt::format("{}(): '{}' must be a dtype, got {}", args.def->name, args.def->params[i].name,
                            Describe(args[i])),
                args.spans[i]);
}

Result<const OpDef*> RequireOp(const std::string& name, const SourceSpan& span) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (!op) return Status(Code::kUnimplemented, fmt::format("op '{}' is not available in this build", name), span);
  return op;
}

// The variable's identity attrs, limited to those `op` declares.
AttrMap VariableAttrs(const OpDef& op, DType dtype, const PartialShape& shape, const std::string& shared_name,
                      const std::string& container) {
  AttrMap attrs;
  auto set = [&](const char* name, AttrValue v) {
    if (op.FindAttr(name)) attrs[name] = std::move(v);
  };
  set("dtype", dtype);
  set("shape", shape);
  set("shared_name", shared_name);
  set("container", container);
  return attrs;
}

// Whether computing `out` reads some variable (walks the inputs backwards).
bool ReadsVariables(const Output& out) {
  std::set<const Node*> seen;
  std::deque<const Node*> queue{out.node};
  while (!queue.empty()) {
    const Node* n = queue.front();
    queue.pop_front();
    if (!seen.insert(n).second) continue;
    if (n->op_name() == "variable") return true;
    for (const Output& in : n->inputs()) queue.push_back(in.node);
    for (const Node* c : n->control_inputs()) queue.push_back(c);
  }
  return false;
}

Result<Value> Constant(BuiltinContext& ev, BoundArgs& args) {
  const Value& v = args[0];
  if (ContainsGraph(v)) return Fail(args, "needs a host value, got " + Describe(v) + "; use identity(x) to copy a tensor");
  TFG_ASSIGN_OR_RETURN(std::optional<DType> dtype, OptionalDType(args, 1));
  auto t = ToTensor(v, dtype);
  if (!t.ok()) return Status(t.status()).WithSpan(args.spans[0]);
  Tensor value = *t;
  if (!args[3].is_none()) {
    std::vector<int64_t> dims;
    for (const Value& d : args[3].is(ValueKind::kList) ? args[3].as_list().items : std::vector<Value>{args[3]}) {
      auto i = AsHostInt(d);
      if (!i || *i < 0) return Fail(args, "shape must be a list of ints >= 0");
      dims.push_back(*i);
    }
    TensorShape shape(dims);
    if (value.num_elements() == 1 && shape.num_elements() != 1) {
      TFG_ASSIGN_OR_RETURN(Tensor fill, ToTensor(Value::NewList(std::vector<Value>(shape.num_elements(),
                                                                                   TensorElement(value, 0))),
                                                 value.dtype()));
      value = fill.Reshaped(shape);
    } else if (value.num_elements() == shape.num_elements()) {
      value = value.Reshaped(shape);
    } else {
      return Fail(args, fmt::format("a value of shape {} cannot take shape {}", value.shape().ToString(),
                                    shape.ToString()));
    }
  }
  std::string name = args[2].is(ValueKind::kString) ? args[2].as_string() : "constant";
  TFG_ASSIGN_OR_RETURN(Output out, ev.AddConstant(value, args.span, name));
  return Value::Graph(out);
}

// A new variable's initial value: a graph tensor used as it is, or a host
// value converted (to dtype= when given) that becomes a constant.
struct InitialValue {
  bool is_graph = false;
  Output graph;
  Tensor host;
  DType dtype() const { return is_graph ? graph.dtype() : host.dtype(); }
  PartialShape shape() const { return is_graph ? graph.shape() : PartialShape(host.shape()); }
  // For a replica_device_setter's greedy strategy; unknown dimensions count as 1.
  int64_t bytes() const {
    int64_t n = 1;
    const PartialShape s = shape();
    if (s.known_rank()) {
      for (int64_t d : s.dims()) n *= d < 0 ? 1 : d;
    }
    return n * static_cast<int64_t>(DTypeSize(dtype()));
  }
};

Result<InitialValue> ResolveInitialValue(BuiltinContext& ev, const BoundArgs& args, std::optional<DType> dtype) {
  InitialValue init;
  init.is_graph = args[0].is_graph();
  if (init.is_graph) {
    TFG_ASSIGN_OR_RETURN(init.graph, ev.ToOutput(args[0], std::nullopt, args.spans[0]));
    if (dtype && *dtype != init.graph.dtype()) {
      return Fail(args, fmt::format("the initial value is {} but dtype={} was given; convert it with cast(x, {})",
                                    DTypeName(init.graph.dtype()), DTypeName(*dtype), DTypeName(*dtype)));
    }
    return init;
  }
  auto t = ToTensor(args[0], dtype);
  if (!t.ok()) return Status(t.status()).Prepend("variable(): ").WithSpan(args.spans[0]);
  init.host = *t;
  return init;
}

Result<Value> VariableBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(const OpDef* var_op, RequireOp("variable", args.span));
  TFG_ASSIGN_OR_RETURN(const OpDef* assign_op, RequireOp("assign", args.span));
  TFG_ASSIGN_OR_RETURN(bool trainable, BoolArg(args, 2));
  TFG_ASSIGN_OR_RETURN(std::optional<DType> dtype, OptionalDType(args, 3));
  std::string base = "variable";
  if (!args[1].is_none()) {
    TFG_ASSIGN_OR_RETURN(base, StringArg(args, 1));
  }
  TFG_ASSIGN_OR_RETURN(InitialValue init, ResolveInitialValue(ev, args, dtype));
  // The node's unique name is the variable's shared name. A variable and its
  // initializer ignore `with deps`, and live where the variable does.
  const std::string full = ev.FreshName(ev.scopes().ScopedName(base));
  const std::string container = ev.scopes().container();
  const std::string device = ev.scopes().VariableDevice(init.bytes());
  BuildOptions opts;
  opts.apply_scope_name = false;
  opts.apply_deps = false;
  AttrMap var_attrs = VariableAttrs(*var_op, init.dtype(), init.shape(), full, container);
  TFG_ASSIGN_OR_RETURN(Node* var_node, ev.AddNode({"variable", {}, {}, var_attrs, full, device, args.span}, opts));
  Output value = init.graph;
  if (!init.is_graph) {
    TFG_ASSIGN_OR_RETURN(value, ev.AddConstant(init.host, args.span, full + "/initial_value", opts));
  }
  AttrMap init_attrs = VariableAttrs(*assign_op, init.dtype(), init.shape(), full, container);
  TFG_ASSIGN_OR_RETURN(Node* init_node,
                       ev.AddNode({"assign", {value}, {}, init_attrs, full + "/init", device, args.span}, opts));

  auto info = std::make_shared<VariableInfo>();
  info->node = var_node;
  info->init = init_node;
  info->shared_name = full;
  info->container = container;
  info->trainable = trainable;
  info->init_reads_variables = init.is_graph && ReadsVariables(value);
  ev.variables().push_back(info);
  return Value::Variable(std::move(info));
}

// An update of a variable (args[0]) by op `op_name` taking `inputs`, named
// args[name_arg] or after the op: on the variable's device, with its attrs.
Result<Value> UpdateNode(BuiltinContext& ev, BoundArgs& args, const std::string& op_name, std::vector<Output> inputs,
                         size_t name_arg) {
  const VariableInfo& var = *args[0].as_variable();
  TFG_ASSIGN_OR_RETURN(const OpDef* op, RequireOp(op_name, args.span));
  std::string name = op_name;
  if (!args[name_arg].is_none()) {
    TFG_ASSIGN_OR_RETURN(name, StringArg(args, name_arg));
  }
  NodeSpec spec{op_name, std::move(inputs), {},
                VariableAttrs(*op, var.dtype(), var.shape(), var.shared_name, var.container),
                name, var.node->requested_device(), args.span};
  TFG_ASSIGN_OR_RETURN(Node* node, ev.AddNode(std::move(spec)));
  if (node->num_outputs() == 0) return Value::Op(node);
  return Value::Graph(node->output(0));
}

Status RequireVariable(const BoundArgs& args, const std::string& op_name) {
  if (args[0].is(ValueKind::kVariable)) return Status::OK();
  return Status(Code::kInvalidArgument,
                fmt::format("{}(): the first argument must be a variable, got {}", op_name, Describe(args[0])),
                args.spans[0]);
}

// `args[i]` as a graph output of `dtype` (nullopt: its own), or an error
// naming the builtin.
Result<Output> UpdateInput(BuiltinContext& ev, BoundArgs& args, size_t i, std::optional<DType> dtype,
                           const std::string& op_name) {
  auto out = ev.ToOutput(args[i], dtype, args.spans[i]);
  if (!out.ok()) return Status(out.status()).Prepend(op_name + "(): ").WithSpan(args.spans[i]);
  return out;
}

// assign / assign_add / assign_sub(var, value) on a variable.
Result<Value> Update(BuiltinContext& ev, BoundArgs& args, const std::string& op_name) {
  TFG_RETURN_IF_ERROR(RequireVariable(args, op_name));
  TFG_ASSIGN_OR_RETURN(Output value, UpdateInput(ev, args, 1, args[0].as_variable()->dtype(), op_name));
  return UpdateNode(ev, args, op_name, {value}, 2);
}

// scatter_add / scatter_sub(var, indices, updates), TensorFlow's order: the
// rows of the variable named by indices change by updates.
Result<Value> ScatterUpdate(BuiltinContext& ev, BoundArgs& args, const std::string& op_name) {
  TFG_RETURN_IF_ERROR(RequireVariable(args, op_name));
  TFG_ASSIGN_OR_RETURN(Output indices, UpdateInput(ev, args, 1, std::nullopt, op_name));
  TFG_ASSIGN_OR_RETURN(Output updates, UpdateInput(ev, args, 2, args[0].as_variable()->dtype(), op_name));
  return UpdateNode(ev, args, op_name, {updates, indices}, 3);
}

Result<Value> Init(BuiltinContext& ev, BoundArgs& args) {
  if (ev.options().check_only) return Value();
  std::vector<Node*> independent;
  std::vector<Node*> ordered;  // initializers reading other variables, in creation order
  for (const auto& v : ev.variables()) (v->init_reads_variables ? ordered : independent).push_back(v->init);
  std::vector<std::vector<Node*>> batches;
  if (!independent.empty()) batches.push_back(independent);
  for (Node* n : ordered) batches.push_back({n});
  for (const auto& batch : batches) {
    auto r = ev.session().Run({}, {}, batch);
    if (!r.ok()) return Status(r.status()).Prepend("init(): ").WithSpan(args.span);
  }
  return Value();
}

Result<Value> Group(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<Node*> nodes, ev.ControlNodes(Value::NewList(args.rest), args.span));
  NodeSpec spec;
  spec.op = "no_op";
  spec.control_inputs = std::move(nodes);
  spec.name = "group";
  if (!args[0].is_none()) {
    TFG_ASSIGN_OR_RETURN(spec.name, StringArg(args, 0));
  }
  spec.span = args.span;
  TFG_ASSIGN_OR_RETURN(Node* node, ev.AddNode(std::move(spec)));
  return Value::Op(node);
}

Result<Value> Variables(BuiltinContext& ev, bool trainable_only) {
  std::vector<Value> out;
  for (const auto& v : ev.variables()) {
    if (!trainable_only || v->trainable) out.push_back(Value::Variable(v));
  }
  return Value::NewList(std::move(out));
}

Result<Value> MakeContext(BuiltinContext& ev, BoundArgs& args, ContextValue::Kind kind) {
  auto ctx = std::make_shared<ContextValue>();
  ctx->kind = kind;
  if (kind == ContextValue::Kind::kDeps) {
    TFG_ASSIGN_OR_RETURN(ctx->nodes, ev.ControlNodes(Value::NewList(args.rest), args.span));
    return Value::Context(std::move(ctx));
  }
  if (kind == ContextValue::Kind::kColocate) {
    TFG_ASSIGN_OR_RETURN(std::vector<Node*> nodes, ev.ControlNodes(args[0], args.spans[0]));
    if (nodes.size() != 1) return Fail(args, "needs one tensor, op or variable, got " + Describe(args[0]));
    ctx->text = nodes[0]->name();
    return Value::Context(std::move(ctx));
  }
  if (kind == ContextValue::Kind::kDevice && args[0].is(ValueKind::kContext) && args[0].as_context().setter) {
    return args[0];  // device(replica_device_setter(...))
  }
  TFG_ASSIGN_OR_RETURN(ctx->text, StringArg(args, 0));
  Status check;
  if (kind == ContextValue::Kind::kDevice) check = DeviceSpec::Parse(ctx->text).status();
  if (kind == ContextValue::Kind::kScope) check = CheckScopeName(ctx->text);
  if (!check.ok()) return check.WithSpan(args.spans[0]);
  if (kind == ContextValue::Kind::kScope) {
    TFG_ASSIGN_OR_RETURN(bool unique, BoolArg(args, 1));
    if (unique && !ctx->text.empty() && ctx->text.back() == '/') return Fail(args, "unique=true needs a relative scope name");
    if (unique && !ctx->text.empty()) ctx->text = ev.scopes().UniqueScope(ev.graph(), ctx->text);
  }
  return Value::Context(std::move(ctx));
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }
BuiltinParam Kw(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v), true}; }

BuiltinDef UpdateDef(const std::string& name, const std::string& doc) {
  return {name, {Req("var"), Req("value"), Opt("name", Value())}, doc,
          [name](BuiltinContext& ev, BoundArgs& a) { return Update(ev, a, name); }};
}
BuiltinDef ScatterDef(const std::string& name, const std::string& doc) {
  return {name, {Req("var"), Req("indices"), Req("updates"), Opt("name", Value())}, doc,
          [name](BuiltinContext& ev, BoundArgs& a) { return ScatterUpdate(ev, a, name); }};
}

const BuiltinRegistrar kGraphBuiltins({
    {"constant", {Req("value"), Opt("dtype", Value()), Opt("name", Value()), Opt("shape", Value())},
     "A constant node holding a host value (converted to dtype when given; a scalar fills shape).", Constant},
    {"variable", {Req("initial_value"), Opt("name", Value()), Opt("trainable", Value::Bool(true)), Opt("dtype", Value())},
     "A variable initialized (by init()) to initial_value, a host value or a graph tensor such as "
     "random_normal([784, 10]). Its dtype and shape are the initial value's.",
     VariableBuiltin},
    UpdateDef("assign", "Sets the variable to value; returns the new value (a graph tensor)."),
    UpdateDef("assign_add", "Adds value to the variable; returns the new value."),
    UpdateDef("assign_sub", "Subtracts value from the variable; returns the new value."),
    ScatterDef("scatter_add", "Adds updates[i] to row indices[i] of the variable (repeated indices all add); returns "
                              "the new value."),
    ScatterDef("scatter_sub", "Subtracts updates[i] from row indices[i] of the variable; returns the new value."),
    ScatterDef("scatter_update", "Sets row indices[i] of the variable to updates[i] (a repeated index: the last "
                                 "wins); returns the new value."),
    ScatterDef("scatter_nd_update", "Sets the slice of the variable at index tuple indices[i] (indices [..., d]) to "
                                    "updates[i]; returns the new value."),
    ScatterDef("scatter_nd_add", "Adds updates[i] to the slice of the variable at index tuple indices[i] (indices "
                                 "[..., d]; repeated tuples all add); returns the new value."),
    ScatterDef("scatter_nd_sub", "Subtracts updates[i] from the slice of the variable at index tuple indices[i]; "
                                 "returns the new value."),
    {"init", {}, "Runs the initializer of every variable created so far.", Init},
    {"reset", {Opt("container", Value::Str(""))},
     "Drops the state (variable values, ...) of a container; \"\" is the default container.",
     [](BuiltinContext& ev, BoundArgs& a) -> Result<Value> {
       TFG_ASSIGN_OR_RETURN(std::string c, StringArg(a, 0));
       ev.session().resources()->Reset(c);
       return Value();
     }},
    {"group", {Kw("name", Value())}, "An op that runs after all the given tensors and ops (a no_op with control inputs).",
     Group, true},
    {"trainable_variables", {}, "The trainable variables created so far.",
     [](BuiltinContext& ev, BoundArgs&) { return Variables(ev, true); }},
    {"global_variables", {}, "Every variable created so far.",
     [](BuiltinContext& ev, BoundArgs&) { return Variables(ev, false); }},
    {"device", {Req("name")},
     "with device(\"/job:worker/task:1/device:cpu:0\") { ... }: places the nodes built inside; "
     "device(replica_device_setter(...)) spreads the variables over parameter servers.",
     [](BuiltinContext& ev, BoundArgs& a) { return MakeContext(ev, a, ContextValue::Kind::kDevice); }},
    {"scope", {Req("name"), Opt("unique", Value::Bool(false))},
     "with scope(\"layer1\") { ... }: names the nodes built inside layer1/...; unique=true picks "
     "layer1_1, layer1_2, ... when layer1 is taken (a second layer); a name ending in '/' is absolute.",
     [](BuiltinContext& ev, BoundArgs& a) { return MakeContext(ev, a, ContextValue::Kind::kScope); }},
    {"deps", {}, "with deps(a, b) { ... }: the nodes built inside run after a and b.",
     [](BuiltinContext& ev, BoundArgs& a) { return MakeContext(ev, a, ContextValue::Kind::kDeps); }, true},
    {"container", {Req("name")}, "with container(\"name\") { ... }: variables built inside live in that container.",
     [](BuiltinContext& ev, BoundArgs& a) { return MakeContext(ev, a, ContextValue::Kind::kContainer); }},
    {"colocate_with", {Req("x")},
     "with colocate_with(x) { ... }: the nodes built inside run on the device of x (a tensor, op or variable).",
     [](BuiltinContext& ev, BoundArgs& a) { return MakeContext(ev, a, ContextValue::Kind::kColocate); }},
});

}  // namespace
}  // namespace tfg
