// The other processes of a cluster, as the session sees them: a named task
// per address, a RemoteDevice per task for placement and partitioning, and
// RemoteTasks, what a run needs of them (register a partition, run it as a
// step, receive its tensors, notice a dead task). The runtime asks only
// this interface; interp/distributed/cluster.h implements it over ZeroMQ,
// so the session runs local and distributed graphs with one code path and
// depends on no transport.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/remote_rendezvous.h"
#include "ops/core/cancellation.h"
#include "ops/core/device.h"
#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

struct ClusterTask {
  std::string name;     // "/job:worker/replica:0/task:1"
  std::string address;  // "tcp://127.0.0.1:7002"
};

// Jobs in the order given; tasks of a job numbered from 0.
using ClusterSpec = std::vector<ClusterTask>;

// A device of another process: placement and partitioning only. No kernel
// ever runs on it here.
class RemoteDevice final : public Device {
 public:
  RemoteDevice(std::string name, int task) : Device(std::move(name), DeviceType::kCpu), task_(task) {}
  Allocator* allocator() override { return HostAllocator(); }
  int task() const { return task_; }

 private:
  int task_;
};

// Thread-safe: steps of concurrent runs call it at once.
class RemoteTasks {
 public:
  virtual ~RemoteTasks() = default;

  virtual const ClusterSpec& tasks() const = 0;
  // A partition to keep on `task`; returns the handle steps name it by.
  virtual Result<uint64_t> Register(int task, const Graph& graph, const std::string& device,
                                    const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                                    const std::vector<Node*>& targets) = 0;
  // Runs a registered partition as one step of run `run_id` and waits for
  // it. `cancel` (may be null) cancelling aborts it on the task. Errors
  // name the task; a task that stops answering fails the step.
  virtual Result<std::vector<Tensor>> RunRemote(int task, uint64_t handle, int64_t run_id, uint64_t seed,
                                                std::vector<Tensor> feeds, double timeout_seconds,
                                                CancellationManager* cancel) = 0;
  // Tensors from the tasks to this process's devices arrive here.
  virtual net::RunRendezvousTable& runs() = 0;

  // Recovery (docs/distributed.md, "Failures and recovery"): the tasks
  // found dead, in index order; why `task` is dead ("" when alive); and a
  // wait of up to `timeout_seconds` for a dead task to answer again, after
  // which its partitions must be registered again.
  virtual std::vector<int> DeadTasks() = 0;
  virtual std::string DeadReason(int task) = 0;
  virtual Status Reconnect(int task, double timeout_seconds) = 0;
};

}  // namespace tfg
