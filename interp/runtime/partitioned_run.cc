#include "interp/runtime/partitioned_run.h"

#include <mutex>
#include <thread>

#include "interp/runtime/remote_tasks.h"
#include "devices/device_copy.h"
#include "ops/core/cancellation.h"
#include "ops/core/rendezvous.h"

namespace tfg {

Result<std::shared_ptr<PartitionedPlan>> BuildPartitionedPlan(PartitionedGraph graph, const DeviceSet& devices,
                                                              int num_fetches, RemoteTasks* cluster) {
  auto out = std::make_shared<PartitionedPlan>();
  out->num_fetches = num_fetches;
  out->sends = graph.sends;
  for (GraphPartition& p : graph.partitions) {
    if (auto* remote = dynamic_cast<RemoteDevice*>(devices.device(p.device))) {
      if (cluster == nullptr) return Internal("a remote device without a cluster");
      TFG_ASSIGN_OR_RETURN(uint64_t handle, cluster->Register(remote->task(), *p.graph, remote->name(), p.feeds,
                                                              p.fetches, p.targets));
      out->parts.push_back({nullptr, remote->task(), handle, std::move(p.feed_index), std::move(p.fetch_index)});
      continue;
    }
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan,
                         BuildPlan(*p.graph, p.feeds, p.fetches, p.targets, devices.device(p.device)));
    plan->graph = std::shared_ptr<const Graph>(std::move(p.graph));
    out->parts.push_back({std::move(plan), -1, 0, std::move(p.feed_index), std::move(p.fetch_index), devices.device(p.device)});
  }
  return out;
}

namespace {

// The parts' outcomes, in the order they end.
class Outcomes {
 public:
  void Record(Status s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s.ok()) failures_.push_back(std::move(s));
  }
  // The first error that is not a cancellation another part's error
  // caused; a plain cancellation when every part was cancelled.
  Status First() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Status& s : failures_) {
      if (s.code() != Code::kCancelled) return s;
    }
    if (failures_.empty()) return Status::OK();
    return Error(Code::kCancelled, "the run was cancelled");
  }

 private:
  std::mutex mu_;
  std::vector<Status> failures_;
};

}  // namespace

Result<std::vector<Tensor>> RunPartitioned(const PartitionedPlan& plan, const std::vector<Tensor>& feeds,
                                           const ExecutorEnv& env, int64_t run_id,
                                           std::atomic<int64_t>& next_step_id, uint64_t seed,
                                           double timeout_seconds, CancellationManager* external,
                                           RemoteTasks* cluster) {
  std::shared_ptr<Rendezvous> rendezvous;
  if (cluster != nullptr) {
    TFG_ASSIGN_OR_RETURN(rendezvous, cluster->runs().Open(run_id));
  } else {
    rendezvous = std::make_shared<LocalRendezvous>();
  }
  // Shared with the callback on `external`, which may still be running
  // when this returns.
  auto cancel = std::make_shared<CancellationManager>();
  CancellationManager::Token token = 0;
  if (external) {
    token = external->Register([cancel] { cancel->StartCancel(); });
    if (token == CancellationManager::kAlreadyCancelled) cancel->StartCancel();
  }
  // A part whose _recv waits while another part computes for long would
  // look stuck to the per-step hang watchdog, which sees only its own step.
  ExecutorEnv part_env = env;
  part_env.hang_timeout_seconds = 0;
  part_env.run_id = run_id;
  std::vector<Tensor> fetched(plan.num_fetches);
  Outcomes outcomes;
  auto run_part = [&](const PartitionedPlan::Part& part) {
    StepInfo info{next_step_id.fetch_add(1, std::memory_order_relaxed), seed};
    std::vector<Tensor> host_feeds;
    for (int i : part.feed_index) host_feeds.push_back(feeds[i]);
    Result<std::vector<Tensor>> result = std::vector<Tensor>{};
    if (part.remote_task >= 0) {
      result = cluster->RunRemote(part.remote_task, part.graph_handle, run_id, seed, std::move(host_feeds),
                                  timeout_seconds, cancel.get());
      // What came over the network is checked before it is indexed.
      if (result.ok() && result->size() != part.fetch_index.size()) {
        result = Error(Code::kDataLoss, "task {} returned {} tensors for {} fetches",
                       cluster->tasks()[part.remote_task].name, result->size(), part.fetch_index.size());
      }
    } else {
      Result<std::vector<Tensor>> part_feeds = TensorsFromHost(part.device, std::move(host_feeds));
      Status s = part_feeds.status();
      if (s.ok()) s = RegisterStepRendezvous(env.resources, info.step_id, std::make_shared<StepRendezvous>(rendezvous, run_id));
      result = s.ok() ? RunStep(part.plan, *part_feeds, part_env, info, timeout_seconds, cancel.get())
                      : Result<std::vector<Tensor>>(s);
      if (result.ok()) result = TensorsToHost(part.device, std::move(*result));
    }
    if (!result.ok()) {
      outcomes.Record(result.status());
      rendezvous->StartAbort(Error(Code::kCancelled, "the run was cancelled"));
      cancel->StartCancel();
      return;
    }
    // Each part writes only its own fetch positions.
    for (size_t i = 0; i < part.fetch_index.size(); ++i) fetched[part.fetch_index[i]] = std::move((*result)[i]);
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < plan.parts.size(); ++i) threads.emplace_back(run_part, std::cref(plan.parts[i]));
  if (!plan.parts.empty()) run_part(plan.parts[0]);
  for (std::thread& t : threads) t.join();
  if (external && token != CancellationManager::kAlreadyCancelled) external->Deregister(token);
  if (cluster != nullptr) cluster->runs().Close(run_id);
  Status failed = outcomes.First();
  if (!failed.ok()) return failed;
  return fetched;
}

}  // namespace tfg
