// The worker's side of a network that fails: steps waiting on a task this
// worker cannot reach, or on a connection that broke while they ran, fail
// with an error naming the task instead of waiting forever
// (interp/distributed/liveness.h has the bounds).
#include <algorithm>
#include <chrono>

#include "interp/distributed/liveness.h"
#include "interp/distributed/worker_impl.h"

namespace tfg {

using worker_internal::Clock;
using worker_internal::Now;

// A session's steps wait for tensors from its other tasks; one this
// worker has not been able to connect to for UnreachablePeerSeconds (a
// partition the master, which still hears from both, cannot see) fails
// them with an error that names it. A task that died is the master's to
// find (in 3 heartbeats, then it aborts the steps), well before that.
void WorkerService::Impl::FailStepsBehindUnreachablePeers() {
  std::vector<std::shared_ptr<WorkerSession>> all;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, s] : sessions) all.push_back(s);
  }
  for (const auto& s : all) {
    int64_t oldest = Now();
    {
      std::lock_guard<std::mutex> lock(s->mu);
      if (s->started.empty()) continue;
      for (const auto& [run, began] : s->started) oldest = std::min(oldest, began);
    }
    // A step that began after the peer went away (the first one after a
    // recovery, while the connection is made again) has waited only since.
    const double waited = std::chrono::duration<double>(Clock::duration(Now() - oldest)).count();
    const double bound = UnreachablePeerSeconds(s->heartbeat_seconds);
    for (const auto& [task, address] : s->addresses) {
      if (task == s->task || address == s->master) continue;
      const double down = std::min(transport->UnreachableFor(address), waited);
      if (down <= bound) continue;
      s->runs.AbortAll(Error(Code::kUnavailable, "task {} at {} is unreachable from task {} (no connection for {:.1f} s)",
                             task, address, s->task, down));
      break;
    }
  }
}

// Steps that were running when a connection to one of their session's
// tasks ended may have lost tensors on it, and would wait for them
// forever: they fail, naming the task (the master then recovers).
void WorkerService::Impl::FailStepsThatLostTensors() {
  std::vector<std::shared_ptr<WorkerSession>> all;
  double grace = LostConnectionGraceSeconds(1);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [id, s] : sessions) {
      all.push_back(s);
      grace = std::max(grace, LostConnectionGraceSeconds(s->heartbeat_seconds));
    }
  }
  // Only connections that ended a grace ago: a dead peer is the master's.
  const int64_t ripe = Now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace)).count();
  std::vector<std::pair<std::string, int64_t>> lost;
  {
    std::lock_guard<std::mutex> lock(lost_mu);
    auto young = std::stable_partition(lost_peers.begin(), lost_peers.end(),
                                       [ripe](const auto& p) { return p.second <= ripe; });
    lost.assign(lost_peers.begin(), young);
    lost_peers.erase(lost_peers.begin(), young);
  }
  if (lost.empty()) return;
  for (const auto& [address, when] : lost) {
    for (const auto& s : all) {
      std::string peer;
      for (const auto& [task, a] : s->addresses) {
        if (a == address && task != s->task && a != s->master) peer = task;
      }
      bool hit = false;
      {
        std::lock_guard<std::mutex> lock(s->mu);
        for (const auto& [run, began] : s->started) hit = hit || began <= when;
      }
      if (peer.empty() || !hit) continue;
      net::LogNet("the connection to " + peer + " at " + address + " ended while a step of session " +
                  std::to_string(s->id) + " ran: failing it");
      s->runs.AbortAll(ConnectionBrokeMidStep(peer, address, s->task));
    }
  }
}

}  // namespace tfg
