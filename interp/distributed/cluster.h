// The master's side of worker mode: the cluster a script names
// (`cluster({...})` or `--cluster`), a connection to every task (checked
// at start-up by a handshake), the registration of partitions with their
// task, and the remote half of a run's steps. Each task's devices join the
// session's DeviceSet as RemoteDevice entries, so the placer and the
// partitioner treat them like local ones; the session's own devices stay
// /job:localhost/... (feeds and fetches live there).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/protocol.h"
#include "net/remote_rendezvous.h"
#include "net/transport.h"
#include "interp/runtime/remote_tasks.h"
#include "ops/core/graph.h"

namespace tfg {

class CancellationManager;
class Session;

// `ps=tcp://127.0.0.1:7001,worker=tcp://127.0.0.1:7002;tcp://127.0.0.1:7003`.
Result<ClusterSpec> ParseClusterFlag(const std::string& text);
// One job's addresses appended as tasks 0..n-1; errors name the job.
Status AddClusterJob(ClusterSpec& spec, const std::string& job, const std::vector<std::string>& addresses);

struct ClusterOptions {
  double heartbeat_seconds = 1;  // a task silent for 3 of these is dead
  double connect_timeout_seconds = 5;
  std::string local_task;        // the master's own, e.g. "/job:localhost/replica:0/task:0"
  // Where the master listens for replies and tensors: tasks on other
  // machines need an address of this machine they can reach.
  std::string listen = "tcp://127.0.0.1:0";
};

class ClusterClient final : public RemoteTasks {
 public:
  // Starts the master's transport on a free loopback port and says Hello
  // to every task: an error names the first task that did not answer
  // ("task /job:worker/replica:0/task:1 unreachable at tcp://... after 5 s")
  // or refused (another protocol version or op set).
  static Result<std::shared_ptr<ClusterClient>> Connect(ClusterSpec spec, ClusterOptions options);
  ~ClusterClient();  // tells every task to drop the session

  const ClusterSpec& tasks() const override { return spec_; }
  // A partition to keep on `task`; returns the handle steps name it by.
  Result<uint64_t> Register(int task, const Graph& graph, const std::string& device, const std::vector<Output>& feeds,
                            const std::vector<Output>& fetches, const std::vector<Node*>& targets) override;
  // Runs a registered partition as one step of run `run_id` and waits for
  // it. `cancel` (may be null) cancelling sends the task an abort. Errors
  // name the task; a task that stops answering heartbeats fails the step.
  Result<std::vector<Tensor>> RunRemote(int task, uint64_t handle, int64_t run_id, uint64_t seed,
                                        std::vector<Tensor> feeds, double timeout_seconds,
                                        CancellationManager* cancel) override;
  // Tensors from workers to this process's devices arrive here.
  net::RunRendezvousTable& runs() override { return *runs_; }

  // Recovery (docs/distributed.md, "Failures and recovery"). The tasks
  // found dead (silent for three heartbeats), in index order.
  std::vector<int> DeadTasks() override;
  // Why `task` is dead ("" when it is alive).
  std::string DeadReason(int task) override;
  // Says Hello to a dead task again and again (it may be restarted, or
  // replaced at its address) until it answers or `timeout_seconds` pass.
  // On an answer the task is alive again, with no state of this session
  // when it is a new process: its partitions must be registered again.
  Status Reconnect(int task, double timeout_seconds) override;

 private:
  struct Pending {
    int task = -1;
    bool done = false;
    net::Message reply;
    Status failure;  // the task died
  };
  ClusterClient(ClusterSpec spec, ClusterOptions options);
  void OnMessage(net::Received& received);
  void FailRequest(std::string_view head, const Status& why);
  // Ends every request waiting on the task(s) at `address`, which refused
  // the connection for good (Transport::OnRefusal).
  void FailRefusedTask(const std::string& address, const std::string& problem);
  // Sends and waits for the reply (or the task's death, or `timeout`).
  Result<net::Message> Call(int task, net::Message m, double timeout_seconds);
  uint64_t SendRequest(int task, net::Message m, bool even_if_dead = false);
  net::Message HelloFor(int task) const;
  Result<net::Message> Wait(uint64_t id, double timeout_seconds);
  void Post(int task, net::Message m);
  void HeartbeatLoop();
  void SendHeartbeats();
  void MarkDead(int task, const std::string& why);
  void MarkDeadIfConnectionBroke(const Status& step_error);
  Status Push(const std::string& task, const net::TensorTransfer& t);

  ClusterSpec spec_;
  ClusterOptions options_;
  uint64_t session_id_ = 0;
  std::unique_ptr<net::RunRendezvousTable> runs_;
  std::unique_ptr<net::Transport> transport_;
  std::unordered_map<std::string, int> task_by_name_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_request_ = 1;                              // guarded by mu_
  std::unordered_map<uint64_t, Pending> pending_;          // guarded by mu_
  std::vector<int64_t> last_heard_;                        // steady ns, guarded by mu_
  std::vector<std::string> dead_;                          // why each task is dead ("" alive); guarded by mu_
  std::atomic<uint64_t> next_handle_{1};
  bool stopping_ = false;                                  // guarded by mu_
  std::thread heartbeat_;
};

// Connects to every task of `spec` and adds their devices to `session`
// (cluster() and --cluster); with `connect` false (check mode) only adds
// the devices, for placement. Error: a task unreachable or refusing, or a
// cluster declared already.
// `listen`: the master's own address ("" for a free loopback port).
Status ConnectSessionToCluster(Session& session, ClusterSpec spec, double heartbeat_seconds, bool connect,
                               const std::string& listen = "");

}  // namespace tfg
