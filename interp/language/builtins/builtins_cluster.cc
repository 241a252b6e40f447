// cluster({"ps": [addr], "worker": [addr, addr]}, heartbeat=1): declares
// the tasks of a distributed run (docs/distributed.md). The master checks
// every task at once; their devices become placeable as
// /job:JOB/task:K/device:cpu:0.
#include "interp/language/builtins/builtins.h"
#include "interp/distributed/cluster.h"
#include "interp/runtime/device_set.h"
#include "interp/runtime/session.h"

namespace tfg {

namespace {

Status Fail(const BoundArgs& args, size_t i, const std::string& msg) {
  return Status(Code::kInvalidArgument, "cluster(): " + msg, args.spans[i]);
}

Result<ClusterSpec> SpecArg(const BoundArgs& args) {
  if (!args[0].is(ValueKind::kDict)) return Fail(args, 0, "expected a dict of job name to a list of addresses");
  ClusterSpec spec;
  for (const auto& [key, value] : args[0].as_dict().entries()) {
    if (!key.is(ValueKind::kString)) return Fail(args, 0, "job names must be strings");
    std::vector<std::string> addresses;
    if (value.is(ValueKind::kString)) {
      addresses.push_back(value.as_string());
    } else if (value.is(ValueKind::kList)) {
      for (const Value& a : value.as_list().items) {
        if (!a.is(ValueKind::kString)) return Fail(args, 0, "addresses must be strings like \"tcp://127.0.0.1:7001\"");
        addresses.push_back(a.as_string());
      }
    } else {
      return Fail(args, 0, "job '" + key.as_string() + "' needs a list of addresses");
    }
    Status s = AddClusterJob(spec, key.as_string(), addresses);
    if (!s.ok()) return Fail(args, 0, s.message());
  }
  if (spec.empty()) return Fail(args, 0, "no tasks");
  return spec;
}

Result<Value> Cluster(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(ClusterSpec spec, SpecArg(args));
  TFG_ASSIGN_OR_RETURN(double heartbeat, NumberArg(args, 1));
  if (!(heartbeat >= 0.01 && heartbeat <= 3600)) return Fail(args, 1, "heartbeat must be from 0.01 to 3600 seconds");
  Status s = ConnectSessionToCluster(ev.session(), std::move(spec), heartbeat, !ev.options().check_only,
                                     ev.options().master_listen);
  if (!s.ok()) return s.WithSpan(args.span);
  return Value();
}

// {"ps": [addr], "worker": [addr, addr]}: the cluster declared so far
// (by --cluster or cluster()), or none; so a script can take its cluster
// from the command line and count its tasks.
Result<Value> ClusterSpecBuiltin(BuiltinContext& ev, BoundArgs&) {
  const std::vector<ClusterTask>& tasks = ev.session().cluster_tasks();
  if (tasks.empty()) return Value();
  Value out = Value::NewDict();
  for (const ClusterTask& t : tasks) {
    const std::string job = t.name.substr(5, t.name.find('/', 5) - 5);  // "/job:NAME/..."
    Value key = Value::Str(job);
    if (out.as_dict().Find(key) == nullptr) TFG_RETURN_IF_ERROR(out.as_dict().Set(key, Value::NewList()));
    out.as_dict().Find(key)->as_list().items.push_back(Value::Str(t.address));
  }
  return out;
}

BuiltinRegistrar reg({
    BuiltinDef{"cluster",
               {{"spec", std::nullopt}, {"heartbeat", Value::Float(1.0)}},
               "declares the tasks of a distributed run: a dict of job name to the addresses of its tasks "
               "(`tfg --worker --listen ADDR` processes); checks each task, then `with device(\"/job:ps/task:0\")` "
               "places work on them. `heartbeat`: seconds between liveness checks (a task silent for three is dead)",
               Cluster},
    BuiltinDef{"cluster_spec", {},
               "the cluster declared so far (by --cluster or cluster()) as a dict of job name to the addresses of "
               "its tasks, or none when there is none",
               ClusterSpecBuiltin},
});

}  // namespace
}  // namespace tfg
