// The insides of WorkerService (interp/distributed/worker.h), shared by
// worker.cc and worker_liveness.cc: one master's state (WorkerSession),
// and the service's own. Not for other files.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "interp/distributed/registered_graph.h"
#include "interp/distributed/worker.h"
#include "interp/runtime/executor.h"
#include "interp/runtime/thread_pool.h"
#include "net/remote_rendezvous.h"
#include "net/transport.h"
#include "ops/core/cancellation.h"

namespace tfg {
namespace worker_internal {

using Clock = std::chrono::steady_clock;

// One master's state on this worker.
struct WorkerSession {
  WorkerSession(uint64_t id, std::string task, std::string master, net::NetRendezvous::Push push)
      : id(id), task(std::move(task)), master(std::move(master)), runs(this->task, std::move(push)) {}
  const uint64_t id;
  const std::string task;    // our name in the master's cluster
  const std::string master;  // the master's address
  std::unordered_map<std::string, std::string> addresses;  // task -> address
  ResourceMgr resources;
  StepCounter live_steps;
  net::RunRendezvousTable runs;
  std::mutex mu;
  std::unordered_map<uint64_t, RegisteredGraph> graphs;                         // guarded by mu
  std::unordered_map<int64_t, std::shared_ptr<CancellationManager>> active;  // run id -> its step; guarded by mu
  std::unordered_map<int64_t, int64_t> started;  // run id -> when its step began (Clock ticks); guarded by mu
  std::atomic<int64_t> last_heard{0};  // Clock ticks
  double heartbeat_seconds = 1;        // the master's interval (its Hello)
};

inline int64_t Now() { return Clock::now().time_since_epoch().count(); }

}  // namespace worker_internal

using worker_internal::WorkerSession;

struct WorkerService::Impl {
  explicit Impl(const WorkerOptions& o) : options(o), device(o.threads), pool(o.threads) {}
  void OnMessage(net::Received& received);
  void Dispatch(net::Message&& m);
  void Reply(const std::string& to, net::Message m);
  void ReplyToStranger(const std::string& to, net::Message m);
  Status AdmitSession(const net::Message& hello, const std::string& master);
  void OnHello(const net::Message& m);
  void OnHelloOfOtherVersion(const net::Message& envelope);
  Status OnRegister(WorkerSession& s, const net::RegisterGraph& r);
  void OnRunStep(std::shared_ptr<WorkerSession> s, net::Message m);
  void RunOneStep(const std::shared_ptr<WorkerSession>& s, const net::Message& m,
                  const std::shared_ptr<CancellationManager>& cancel);
  void ReplyStepDone(const WorkerSession& s, const net::Message& m, Result<std::vector<Tensor>> result);
  void StepEnded();  // one of running_steps ended
  Result<std::vector<Tensor>> ExecuteStep(WorkerSession& s, const net::RunStep& r,
                                          const std::shared_ptr<CancellationManager>& cancel);
  Status Push(WorkerSession* s, const std::string& task, const net::TensorTransfer& t);
  std::shared_ptr<WorkerSession> Find(uint64_t id);
  void Drop(uint64_t id, const std::string& why);
  void ForgetUnusedPeers(const WorkerSession& dropped);  // needs mu
  void ReapSilent();
  void FailStepsBehindUnreachablePeers();
  void FailStepsThatLostTensors();

  WorkerOptions options;
  CpuDevice device;
  ThreadPool pool;
  std::unique_ptr<net::Transport> transport;
  std::atomic<int64_t> next_step_id{1};
  std::atomic<int64_t> async_done{0};
  std::mutex mu;
  std::unordered_map<uint64_t, std::shared_ptr<WorkerSession>> sessions;  // guarded by mu
  // Step threads, so shutdown can wait for them.
  std::mutex steps_mu;
  std::condition_variable steps_cv;
  int running_steps = 0;  // guarded by steps_mu
  // Peers whose connection ended, and when (from the I/O thread).
  std::mutex lost_mu;
  std::vector<std::pair<std::string, int64_t>> lost_peers;  // guarded by lost_mu
};

}  // namespace tfg
