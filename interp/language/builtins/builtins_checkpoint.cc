// Checkpoint builtins: save(path, vars) and restore(path, vars) build a
// save_variables / restore_variables node (one per set of variables, reused
// by later calls) and run it at once, as init() runs the initializers;
// latest_checkpoint, checkpoint_steps and delete_checkpoint let
// stdlib/checkpoint.tfg keep the newest checkpoints of a training run.
#include <cstdio>
#include <map>

#include "interp/language/builtins/builtins.h"
#include "interp/language/checkpoint_across_tasks.h"
#include "interp/language/recovery.h"
#include "ops/io/checkpoint_file.h"

namespace tfg {
namespace {

// The prefix of the files checkpoint_every writes: dir/model-<step>.
constexpr const char* kStepPrefix = "model";

Status Fail(const BoundArgs& args, size_t param, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.spans[param]);
}

Result<NamedVariable> AsVariable(const BoundArgs& args, const Value& v, std::string name) {
  if (!v.is(ValueKind::kVariable)) {
    return Fail(args, 1, "vars must hold variables, got " + Describe(v));
  }
  if (name.empty()) name = v.as_variable()->shared_name;
  return NamedVariable{std::move(name), v.as_variable()};
}

// vars=: none (every variable), a variable, a list of them, or a dict
// {name in the file: variable}.
Result<std::vector<NamedVariable>> ResolveVars(BuiltinContext& ev, const BoundArgs& args) {
  const Value& v = args[1];
  std::vector<NamedVariable> out;
  if (v.is_none()) {
    for (const auto& var : ev.variables()) out.push_back({var->shared_name, var});
  } else if (v.is(ValueKind::kVariable)) {
    TFG_ASSIGN_OR_RETURN(NamedVariable nv, AsVariable(args, v, ""));
    out.push_back(std::move(nv));
  } else if (v.is(ValueKind::kList)) {
    for (const Value& item : v.as_list().items) {
      TFG_ASSIGN_OR_RETURN(NamedVariable nv, AsVariable(args, item, ""));
      out.push_back(std::move(nv));
    }
  } else if (v.is(ValueKind::kDict)) {
    for (const auto& [key, item] : v.as_dict().entries()) {
      if (!key.is(ValueKind::kString) || key.as_string().empty()) {
        return Fail(args, 1, "the keys of a vars dict are the names in the file (non-empty strings), got " +
                                 Describe(key));
      }
      TFG_ASSIGN_OR_RETURN(NamedVariable nv, AsVariable(args, item, key.as_string()));
      out.push_back(std::move(nv));
    }
  } else {
    return Fail(args, 1, "vars must be a variable, a list of variables or a dict {name: variable}, got " +
                             Describe(v));
  }
  if (out.empty()) return Fail(args, 1, "there are no variables to " + args.def->name);
  std::map<std::string, const VariableInfo*> seen;
  for (const NamedVariable& nv : out) {
    auto [it, fresh] = seen.emplace(nv.name, nv.var.get());
    if (!fresh) {
      return Fail(args, 1, fmt::format("two variables would both be saved as '{}'; pass vars as a dict "
                                       "{{name: variable}} to name them apart",
                                       nv.name));
    }
  }
  return out;
}

AttrMap NodeAttrs(const std::vector<NamedVariable>& vars, bool restore, bool allow_unused,
                  const std::string& format) {
  std::vector<std::string> names, shared, containers;
  std::vector<DType> dtypes;
  std::vector<PartialShape> shapes;
  for (const NamedVariable& nv : vars) {
    names.push_back(nv.name);
    shared.push_back(nv.var->shared_name);
    containers.push_back(nv.var->container);
    dtypes.push_back(nv.var->dtype());
    shapes.push_back(nv.var->shape());
  }
  AttrMap attrs{{"tensor_names", names}, {"shared_names", shared}, {"containers", containers}};
  if (restore) {
    attrs["dtypes"] = dtypes;
    attrs["shapes"] = shapes;
    attrs["allow_unused"] = allow_unused;
  } else {
    attrs["format"] = format;
  }
  return attrs;
}

// A node built by an earlier call for the same variables, or null.
Node* FindCached(BuiltinContext& ev, const std::string& op, const AttrMap& attrs) {
  auto same = [&](const Node& n, const char* name, auto type_tag) {
    using T = decltype(type_tag);
    const T* a = n.attr<T>(name);
    const T* b = FindAttr<T>(attrs, name);
    return (a == nullptr) == (b == nullptr) && (a == nullptr || *a == *b);
  };
  for (const auto& node : ev.graph().nodes()) {
    if (node->op_name() != op) continue;
    if (same(*node, "tensor_names", std::vector<std::string>()) && same(*node, "shared_names", std::vector<std::string>()) &&
        same(*node, "containers", std::vector<std::string>()) && same(*node, "dtypes", std::vector<DType>()) &&
        same(*node, "shapes", std::vector<PartialShape>()) && same(*node, "allow_unused", false) &&
        same(*node, "format", std::string())) {
      return node.get();
    }
  }
  return nullptr;
}

// The save or restore node for these variables, with its file name
// placeholder as input 0. Built outside any `with` scope: it belongs to the
// variables, not to the code around the call.
Result<Node*> SaveOrRestoreNode(BuiltinContext& ev, const std::string& op, AttrMap attrs, const SourceSpan& span) {
  if (Node* cached = FindCached(ev, op, attrs)) return cached;
  BuildOptions opts;
  opts.apply_scope_name = false;
  opts.apply_device = false;
  opts.apply_deps = false;
  const std::string base = op == "save_variables" ? "save" : "restore";
  AttrMap ph_attrs{{"dtype", DType::kString}, {"shape", PartialShape::Scalar()}};
  TFG_ASSIGN_OR_RETURN(Node* filename, ev.AddNode({"placeholder", {}, {}, ph_attrs, base + "/filename", "", span}, opts));
  return ev.AddNode({op, {filename->output(0)}, {}, std::move(attrs), base, "", span}, opts);
}

Status RunAt(BuiltinContext& ev, Node* node, const std::string& path, const SourceSpan& span) {
  Tensor filename = Tensor::Scalar<std::string>(path);
  auto r = ev.session().Run({{node->inputs()[0], filename}}, {}, {node});
  if (r.ok()) return Status::OK();
  // The kernel's message already says "save: ..." / "restore: ...": the
  // node the executor names is an implementation detail of this builtin.
  std::string message = r.status().message();
  const std::string node_prefix = fmt::format("{} '{}': ", node->op_name(), node->name());
  if (message.rfind(node_prefix, 0) == 0) message.erase(0, node_prefix.size());
  // The node may come from an earlier call: point at this one.
  return Status(r.status().code(), message, span);
}

// save()'s format=: "tfg" (tfg's one-file format) or "tensorflow" (a V2
// checkpoint, ops/io/tf_bundle_file.h).
Result<std::string> FormatArg(const BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string format, StringArg(args, 2));
  if (format != "tfg" && format != "tensorflow") {
    return Status(Code::kInvalidArgument,
                  fmt::format("save(): format must be \"tfg\" or \"tensorflow\", got \"{}\"", format),
                  args.spans[2]);
  }
  return format;
}

Result<Value> SaveOrRestore(BuiltinContext& ev, BoundArgs& args, bool restore) {
  TFG_ASSIGN_OR_RETURN(std::string path, StringArg(args, 0));
  if (path.empty()) return Fail(args, 0, "the path is empty");
  std::string format = "tfg";
  if (!restore) {
    TFG_ASSIGN_OR_RETURN(format, FormatArg(args));
  }
  TFG_ASSIGN_OR_RETURN(std::vector<NamedVariable> vars, ResolveVars(ev, args));
  if (ev.options().check_only) return restore ? Value() : Value::Str(path);
  if (ev.session().cluster() != nullptr && format != "tfg") {
    return Status(Code::kUnimplemented,
                  "save(): format=\"tensorflow\" with a cluster is not supported yet; save in tfg's format, "
                  "restore it in one process and save it there",
                  args.spans[2]);
  }
  if (ev.session().cluster() != nullptr) {
    Status s = restore ? RestoreAcrossTasks(ev, vars, path, !args[1].is_none()) : SaveAcrossTasks(ev, vars, path);
    // A task that died during checkpoint_every's save: recovered like a
    // run(), and the save then writes the restored values.
    if (!s.ok() && !restore) {
      auto recovered = RecoverFromDeadTasks(ev, s);
      if (!recovered.ok()) s = recovered.status();
      if (recovered.ok() && *recovered) s = SaveAcrossTasks(ev, vars, path);
    }
    if (!s.ok()) return s.WithSpan(args.span);
    return restore ? Value() : Value::Str(path);
  }
  const std::string op = restore ? "restore_variables" : "save_variables";
  TFG_ASSIGN_OR_RETURN(Node* node,
                       SaveOrRestoreNode(ev, op, NodeAttrs(vars, restore, !args[1].is_none(), format), args.span));
  TFG_RETURN_IF_ERROR(RunAt(ev, node, path, args.span));
  return restore ? Value() : Value::Str(path);
}

Result<std::vector<std::pair<int64_t, std::string>>> StepFiles(const BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string dir, StringArg(args, 0));
  auto found = checkpoint::List(dir, kStepPrefix);
  if (!found.ok()) return Status(found.status()).Prepend(args.def->name + "(): ").WithSpan(args.span);
  return found;
}

Result<Value> LatestCheckpoint(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(auto found, StepFiles(args));
  if (found.empty()) return Value();
  return Value::Str(found.back().second);
}

Result<Value> CheckpointSteps(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(auto found, StepFiles(args));
  std::vector<Value> steps;
  for (const auto& [step, path] : found) steps.push_back(Value::Int(step));
  return Value::NewList(std::move(steps));
}

// Only files that start with the checkpoint magic are deleted, so a wrong
// path cannot remove anything else. Check mode deletes nothing.
Result<Value> DeleteCheckpoint(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, StringArg(args, 0));
  if (ev.options().check_only) return Value();
  if (!checkpoint::LooksLikeCheckpoint(path)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("delete_checkpoint(): '{}' is not a checkpoint file; it was left alone", path),
                  args.spans[0]);
  }
  if (std::remove(path.c_str()) != 0) {
    return Status(Code::kUnavailable, fmt::format("delete_checkpoint(): cannot delete '{}'", path), args.span);
  }
  return Value();
}

// checkpoint_every's hook: where a run() restores from when a cluster task
// dies, and how many steps the loop has done (to say how many are lost).
Result<Value> RecoveryPointBuiltin(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string dir, StringArg(args, 0));
  if (dir.empty()) return Fail(args, 0, "the directory is empty");
  if (!args[2].is(ValueKind::kInt) || args[2].as_int() < 0) {
    return Status(Code::kInvalidArgument, "recovery_point(): steps_done must be an int >= 0", args.spans[2]);
  }
  auto point = std::make_shared<RecoveryPoint>();
  point->dir = dir;
  point->steps_done = args[2].as_int();
  point->subset = !args[1].is_none();
  if (point->subset) {
    TFG_ASSIGN_OR_RETURN(point->vars, ResolveVars(ev, args));
  }
  ev.recovery_point() = std::move(point);
  return Value();
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kCheckpointBuiltins({
    {"save", {Req("path"), Opt("vars", Value()), Opt("format", Value::Str("tfg"))},
     "Writes variables to the checkpoint file path (atomically; parent directories are created) and returns "
     "path. vars: every variable (default), a list of variables, or a dict {name in the file: variable}. "
     "format=\"tensorflow\" writes a TensorFlow V2 checkpoint instead (path.index and "
     "path.data-00000-of-00001) that tf.train.load_checkpoint and tf.compat.v1.train.Saver read. "
     "See docs/checkpoints.md.",
     [](BuiltinContext& ev, BoundArgs& a) { return SaveOrRestore(ev, a, false); }},
    {"restore", {Req("path"), Opt("vars", Value())},
     "Sets variables from the checkpoint file path, all or nothing: a corrupt file, or a variable missing, "
     "mistyped or mis-shaped in it, is refused and no variable changes. Without vars the file must hold "
     "exactly the graph's variables. A TensorFlow V2 checkpoint (path.index beside path) is read too; "
     "vars={\"name in the file\": variable} maps its names to tfg's.",
     [](BuiltinContext& ev, BoundArgs& a) { return SaveOrRestore(ev, a, true); }},
    {"latest_checkpoint", {Req("dir")},
     "The newest checkpoint dir/model-<step> in dir (the highest step), or none when there is none.",
     LatestCheckpoint},
    {"checkpoint_steps", {Req("dir")}, "The steps of the checkpoints dir/model-<step> in dir, ascending.",
     CheckpointSteps},
    {"recovery_point", {Req("dir"), Opt("vars", Value()), Opt("steps_done", Value::Int(0))},
     "Makes a run() that fails because a cluster task died wait for the task to come back, restore the "
     "newest checkpoint of dir (vars as restore takes them) and run again; steps_done: the training loop's "
     "steps so far. checkpoint_every calls it. See docs/distributed.md.",
     RecoveryPointBuiltin},
    {"delete_checkpoint", {Req("path")}, "Deletes a checkpoint file (and refuses any file that is not one).",
     DeleteCheckpoint},
});

}  // namespace
}  // namespace tfg
