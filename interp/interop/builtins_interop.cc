// import_graph_def and export_graph_def: TensorFlow GraphDefs from scripts.

#include <fmt/format.h>

#include "interp/interop/exporter.h"
#include "interp/interop/graph_def_io.h"
#include "interp/interop/importer.h"
#include "interp/language/builtins/builtins.h"
#include "interp/language/builtins/path_arg.h"

namespace tfg {
namespace {

Result<std::map<std::string, Output>> InputMap(BuiltinContext& ev, const BoundArgs& args, size_t i) {
  std::map<std::string, Output> out;
  if (args[i].is_none()) return out;
  if (!args[i].is(ValueKind::kDict)) {
    return Status(Code::kInvalidArgument, args.def->name + ": input_map must be a dict {\"name:0\": tensor}",
                  args.spans[i]);
  }
  for (const auto& [key, value] : args[i].as_dict().entries()) {
    if (!key.is(ValueKind::kString)) {
      return Status(Code::kInvalidArgument, args.def->name + ": input_map keys are tensor names (\"x:0\")",
                    args.spans[i]);
    }
    std::string name = key.as_string();
    if (name.find(':') == std::string::npos) name += ":0";
    TFG_ASSIGN_OR_RETURN(Output o, ev.ToOutput(value, std::nullopt, args.spans[i]));
    out[name] = o;
  }
  return out;
}

Result<Value> ImportGraphDefBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  interop::ImportOptions opts;
  opts.span = args.span;
  TFG_ASSIGN_OR_RETURN(opts.input_map, InputMap(ev, args, 1));
  TFG_ASSIGN_OR_RETURN(opts.scope, StringArg(args, 2));
  Result<tf::GraphDef> def = interop::ReadGraphDefFile(path);
  if (!def.ok()) return Status(def.status()).Prepend(args.def->name + ": ").WithSpan(args.span);
  TFG_ASSIGN_OR_RETURN(interop::ImportedGraph g,
                       interop::ImportGraphDef(*def, opts, [&](NodeSpec spec) { return ev.AddNode(std::move(spec)); }));
  Value dict = Value::NewDict();
  for (auto& [name, out] : g.tensors) TFG_RETURN_IF_ERROR(dict.as_dict().Set(Value::Str(name), Value::Graph(out)));
  for (auto& [name, node] : g.ops) TFG_RETURN_IF_ERROR(dict.as_dict().Set(Value::Str(name), Value::Op(node)));
  return dict;
}

// The current values of the script's variables, by running them.
Result<std::map<const Node*, Tensor>> VariableValues(BuiltinContext& ev, const BoundArgs& args) {
  std::map<const Node*, Tensor> values;
  std::vector<Value> vars;
  for (const auto& v : ev.variables()) vars.push_back(Value::Variable(v));
  if (vars.empty()) return values;
  const BuiltinDef* run = BuiltinRegistry::Global().Find("run");
  if (!run) return Status(Code::kInternal, "export_graph_def: no run builtin", args.span);
  CallArgs call;
  call.Add(Value::NewList(vars), args.span);
  TFG_ASSIGN_OR_RETURN(Value got, ev.Call(Value::Builtin(run, run->name), std::move(call), args.span));
  if (!got.is(ValueKind::kList) || got.as_list().items.size() != vars.size()) {
    return Status(Code::kInternal, "export_graph_def: run() gave no value per variable", args.span);
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    const Value& t = got.as_list().items[i];
    if (!t.is(ValueKind::kTensor)) return Status(Code::kInternal, "export_graph_def: a variable's value is not a tensor", args.span);
    values[ev.variables()[i]->node] = t.as_tensor();
  }
  return values;
}

Result<Value> ExportGraphDefBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  interop::ExportOptions opts;
  if (!args[1].is_none()) {
    TFG_ASSIGN_OR_RETURN(std::vector<Node*> roots, ev.ControlNodes(args[1], args.spans[1]));
    opts.roots.assign(roots.begin(), roots.end());
  }
  TFG_ASSIGN_OR_RETURN(bool freeze, BoolArg(args, 2));
  if (ev.options().check_only) return Value::None();
  if (freeze) {
    TFG_ASSIGN_OR_RETURN(opts.frozen, VariableValues(ev, args));
  } else {
    for (const auto& v : ev.variables()) {
      if (v->init) opts.initializers.push_back(v->init);
    }
  }
  Result<tf::GraphDef> def = interop::ExportGraphDef(ev.graph(), opts);
  if (!def.ok()) return Status(def.status()).Prepend(args.def->name + ": ").WithSpan(args.span);
  Status s = interop::WriteGraphDefFile(path, *def);
  if (!s.ok()) return s.Prepend(args.def->name + ": ").WithSpan(args.span);
  return Value::None();
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kInteropBuiltins({
    {"import_graph_def", {Req("path"), Opt("input_map", Value()), Opt("name", Value::Str("import"))},
     "Adds the nodes of a TensorFlow GraphDef file (binary .pb or text .pbtxt, told apart by content) under the "
     "name scope `name` and returns a dict from TensorFlow names to them: \"logits:0\" -> tensor, \"init\" -> op. "
     "input_map={\"x:0\": t} wires a placeholder to the script's tensor t. Ops tfg lacks are listed, with counts "
     "and first node, before anything is added. See docs/tensorflow-interop.md.",
     ImportGraphDefBuiltin},
    {"export_graph_def", {Req("path"), Opt("fetches", Value()), Opt("freeze", Value::Bool(false))},
     "Writes the script's graph as a TensorFlow GraphDef (binary; text when the path ends in .pbtxt) that "
     "tf.compat.v1.import_graph_def loads: ops, attrs and dtypes in TensorFlow's names, while loops as "
     "TensorFlow 1 frames, variables as VariableV2 with their initializers. Ops with no TensorFlow counterpart "
     "are an error naming them. fetches= (tensors or ops) exports only what they need; freeze=true writes the "
     "variables' current values as constants (run it after init() or restore()). See docs/tensorflow-interop.md.",
     ExportGraphDefBuiltin},
});

}  // namespace
}  // namespace tfg
