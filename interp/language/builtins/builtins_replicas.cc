// Builtins for training across devices (white paper §7, OSDI §4.4):
// replica_device_setter(...) spreads variables over parameter servers, and
// start_runner(op) runs a replica's training step in background threads,
// so several replicas step at once, each at its own pace (between-graph
// replication inside one script). The replication idioms built on them
// (replicate, sync_replicas, ...) are in stdlib/replicas.tfg.
#include "interp/language/builtins/builtins.h"
#include "interp/language/device_setter.h"
#include "interp/runtime/queue_runner.h"

namespace tfg {
namespace {

Status Fail(const BoundArgs& args, size_t i, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.spans[i]);
}

// ps_devices when given, else ps_device + "/task:K" for K < ps_tasks.
Result<std::vector<std::string>> PsDevices(const BoundArgs& args) {
  std::vector<std::string> names;
  if (!args[3].is_none()) {
    if (!args[3].is(ValueKind::kList)) return Fail(args, 3, "ps_devices must be a list of device names");
    for (const Value& v : args[3].as_list().items) {
      if (!v.is(ValueKind::kString)) {
        return Fail(args, 3, "ps_devices must be a list of device names, got " + Describe(v));
      }
      names.push_back(v.as_string());
    }
    if (names.empty()) return Fail(args, 3, "ps_devices is empty");
    return names;
  }
  TFG_ASSIGN_OR_RETURN(int64_t tasks, IntArg(args, 0));
  TFG_ASSIGN_OR_RETURN(std::string ps_device, StringArg(args, 1));
  if (tasks < 1 || tasks > 4096) {
    return Fail(args, 0, fmt::format("needs ps_tasks >= 1 (or a list ps_devices), got ps_tasks={}", tasks));
  }
  for (int64_t k = 0; k < tasks; ++k) names.push_back(fmt::format("{}/task:{}", ps_device, k));
  return names;
}

Result<Value> ReplicaDeviceSetterBuiltin(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<std::string> ps, PsDevices(args));
  TFG_ASSIGN_OR_RETURN(std::string worker, StringArg(args, 2));
  TFG_ASSIGN_OR_RETURN(std::string strategy_name, StringArg(args, 4));
  auto strategy = ReplicaDeviceSetter::ParseStrategy(strategy_name);
  if (!strategy.ok()) return Fail(args, 4, strategy.status().message());
  auto setter = ReplicaDeviceSetter::Make(ps, worker, *strategy);
  if (!setter.ok()) return Status(setter.status()).Prepend("replica_device_setter(): ").WithSpan(args.span);
  auto ctx = std::make_shared<ContextValue>();
  ctx->kind = ContextValue::Kind::kDevice;
  ctx->setter = *setter;
  ctx->text = (*setter)->Describe();
  return Value::Context(std::move(ctx));
}

Result<Value> StartRunner(BuiltinContext& ev, BoundArgs& args) {
  const Value& op = args[0];
  if (!op.is(ValueKind::kOp) && !op.is_graph()) {
    return Fail(args, 0, "needs an op or graph tensor to run, got " + Describe(op));
  }
  TFG_ASSIGN_OR_RETURN(std::vector<Node*> nodes, ev.ControlNodes(op, args.spans[0]));
  if (nodes.size() != 1) return Fail(args, 0, "needs one op, got " + Describe(op));
  TFG_ASSIGN_OR_RETURN(int64_t threads, IntArg(args, 1));
  if (threads < 1 || threads > 64) return Fail(args, 1, fmt::format("threads must be in [1, 64], got {}", threads));
  if (ev.options().check_only) return Value();
  QueueRunners::For(ev.session()).Start(nodes[0], nullptr, nullptr, static_cast<int>(threads), args.span);
  return Value();
}

const BuiltinRegistrar kReplicaBuiltins({
    {"replica_device_setter",
     {BuiltinParam{"ps_tasks", Value::Int(0)}, BuiltinParam{"ps_device", Value::Str("/job:ps")},
      BuiltinParam{"worker_device", Value::Str("/job:worker")}, BuiltinParam{"ps_devices", Value()},
      BuiltinParam{"strategy", Value::Str("round_robin")}},
     "A device context for `with`: each variable built inside goes to a parameter-server device "
     "(ps_devices, or ps_device/task:K for K < ps_tasks), chosen \"round_robin\" or \"greedy\" (fewest bytes so "
     "far); every other node goes to worker_device.",
     ReplicaDeviceSetterBuiltin},
    {"start_runner", {BuiltinParam{"op", std::nullopt}, BuiltinParam{"threads", Value::Int(1)}},
     "Starts threads that run op again and again (e.g. a replica's training step) until its run ends with "
     "OutOfRange, Aborted or Cancelled or the runners are stopped; other errors are reported at the next run().",
     StartRunner},
});

}  // namespace
}  // namespace tfg
