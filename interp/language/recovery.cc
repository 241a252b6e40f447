#include "interp/language/recovery.h"

#include <chrono>
#include <ostream>

#include "interp/runtime/remote_tasks.h"
#include "ops/io/checkpoint_file.h"

namespace tfg {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Without a checkpoint yet, the newest consistent state is the initial one.
Status InitializeAll(BuiltinContext& ev) {
  std::vector<Node*> independent;
  for (const auto& v : ev.variables()) {
    if (!v->init_reads_variables) independent.push_back(v->init);
  }
  if (!independent.empty()) TFG_RETURN_IF_ERROR(ev.session().Run({}, {}, independent).status());
  for (const auto& v : ev.variables()) {
    if (v->init_reads_variables) TFG_RETURN_IF_ERROR(ev.session().Run({}, {}, {v->init}).status());
  }
  return Status::OK();
}

// Restores the newest checkpoint of the point's directory; returns its
// step (0 with none: the variables are initialized again).
Result<int64_t> RestoreNewest(BuiltinContext& ev, const RecoveryPoint& point, std::string& restored) {
  TFG_ASSIGN_OR_RETURN(auto found, checkpoint::List(point.dir, "model"));
  if (found.empty()) {
    restored = "the initial values (no checkpoint yet)";
    TFG_RETURN_IF_ERROR(InitializeAll(ev));
    return 0;
  }
  std::vector<NamedVariable> vars = point.vars;
  if (vars.empty()) {
    for (const auto& v : ev.variables()) vars.push_back({v->shared_name, v});
  }
  restored = found.back().second;
  TFG_RETURN_IF_ERROR(RestoreAcrossTasks(ev, vars, restored, point.subset));
  return found.back().first;
}

}  // namespace

Result<bool> RecoverFromDeadTasks(BuiltinContext& ev, const Status& failure) {
  RemoteTasks* cluster = ev.session().cluster();
  const RecoveryPoint* point = ev.recovery_point().get();
  if (cluster == nullptr || point == nullptr || failure.code() == Code::kCancelled) return false;
  const std::vector<int> dead = cluster->DeadTasks();
  if (dead.empty()) return false;
  const double timeout = ev.options().recovery_timeout;
  const auto start = std::chrono::steady_clock::now();
  for (int task : dead) {
    const ClusterTask& t = cluster->tasks()[task];
    ev.err() << "tfg: " << cluster->DeadReason(task) << "; waiting up to " << timeout << " s for it at "
             << t.address << std::endl;
    Status back = cluster->Reconnect(task, timeout);
    if (!back.ok()) {
      return Status(failure.code(), failure.message() + "; " + back.message(), failure.span());
    }
    ev.session().ForgetTask(task);
  }
  std::string restored;
  auto step = RestoreNewest(ev, *point, restored);
  if (!step.ok()) return Status(step.status()).Prepend("recovering from a dead task: ");
  std::string names;
  for (int task : dead) names += (names.empty() ? "" : ", ") + cluster->tasks()[task].name;
  const int64_t lost = std::max<int64_t>(0, point->steps_done - *step);
  ev.err() << fmt::format("tfg: task {} is back after {:.1f} s; restored {}, lost {} step{}", names,
                          SecondsSince(start), restored, lost, lost == 1 ? "" : "s")
           << std::endl;
  return true;
}

}  // namespace tfg
