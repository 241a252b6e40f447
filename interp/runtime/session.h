// A Session runs (parts of) a graph. run(fetches, feed) prunes the graph to
// what the fetches need, prepares a plan (kernels created, device assigned,
// execution order and dependency counts computed) and caches it per
// (fetches, feeds, targets) signature, so a training loop's repeated runs do
// no graph work. Variables and other state persist in the session's
// ResourceMgr across runs.
#pragma once

#include <ostream>

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/resource_mgr.h"
#include "ops/core/tensor.h"

namespace tfg {

class CancellationManager;
class RemoteTasks;
struct ClusterTask;
class Device;
class DeviceSet;
class RunStats;
class Tracer;

// The command line's options for running the graph are parsed straight
// into this (InterpreterOptions::session), so each is declared here alone.
struct SessionOptions {
  int inter_op_threads = 0;  // --threads sets both; 0: one per core
  int intra_op_threads = 0;  // 0: one per core
  uint64_t seed = 0;         // --seed; 0: nondeterministic
  // --check-numerics: a run (or eager op) fails at the first op whose
  // floating-point output holds NaN or Inf, naming the node.
  bool check_numerics = false;
  // --stats: time every kernel (see stats()).
  bool collect_stats = false;
  // --trace: record a timeline of kernels and steps (see tracer()).
  bool trace = false;
  // RunEager fails with ResourceExhausted when an input or output would have
  // more elements (0: no limit).
  int64_t max_eager_elements = 0;
  // --hang-timeout S, the hang watchdog: a step in which nothing has run
  // for this long while every op still pending waits on a queue (and no
  // other step of the session made progress meanwhile) fails with
  // DeadlineExceeded, naming the waiting ops, their queues and their
  // lines. 0: never.
  double hang_timeout_seconds = 10;
  // Optimize each plan's graph (interp/runtime/graph_optimizer.h) before running it.
  bool optimize = true;
  // --local-devices cpu=N: N logical CPU devices, sharing the CPU device's
  // memory and threads, for placement across devices in one process.
  int local_cpu_devices = 1;
  // --device TYPE: the device type nodes without one of their own prefer
  // ("": any). No device of the type there: placement fails.
  std::string default_device_type{};
  // --log-placement: where each node of a plan runs, one line per node
  // (interp/runtime/placement_log.h), written when the plan is built. Null: no log.
  std::ostream* placement_log = nullptr;
};

struct RunOptions {
  double timeout_seconds = 0;  // 0: none
  // When this is cancelled (Ctrl-C, a queue runner stopping), the step is
  // cancelled too and fails with Cancelled. Null: only the step's own
  // errors and deadline cancel it.
  CancellationManager* cancellation = nullptr;
};

// A value fed for `o` must have its dtype and a shape its static shape
// allows: "feed for placeholder 'x': expected f32[?, 784], got f32[32, 785]",
// with a note at the declaration. Check mode uses it without a run.
Status ValidateFeed(const Output& o, const Tensor& value);

class Session {
 public:
  Session(const Graph* graph, SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Feeds replace the values of the given outputs (usually placeholders);
  // each feed is checked against the output's dtype and static shape.
  // Returns one tensor per fetch. Errors from kernels carry the span of the
  // node that failed and name it.
  Result<std::vector<Tensor>> Run(const std::vector<std::pair<Output, Tensor>>& feeds,
                                  const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                  const RunOptions& options = {});

  // Runs one op at once on host tensors (eager evaluation of ops whose
  // inputs are all host values) on the CPU device.
  Result<std::vector<Tensor>> RunEager(const OpDef& op, AttrMap attrs, const std::vector<Tensor>& inputs,
                                       const SourceSpan& span);

  ResourceMgr* resources() { return &resources_; }
  // Queue runners run steps on their own threads while the script goes on
  // building the graph: whoever changes the graph holds this exclusively;
  // Run holds it shared while it reads the graph (a plan, once built, does
  // not read it again).
  std::shared_mutex& graph_mutex() { return graph_mu_; }
  Device* cpu_device();
  // The devices nodes are placed on (interp/runtime/placer.h).
  const DeviceSet& devices() const;
  // Worker mode: every task adds its device
  // (/job:J/replica:0/task:K/device:cpu:0) to the set, cached plans are
  // dropped, and runs placed there go to the tasks through `cluster`
  // (null: placement only, for `tfg check` and `tfg graph --placed`).
  // Once per session.
  Status AttachCluster(const std::vector<ClusterTask>& tasks, std::shared_ptr<RemoteTasks> cluster);
  RemoteTasks* cluster() const;
  // The tasks AttachCluster was given (empty before).
  const std::vector<ClusterTask>& cluster_tasks() const;
  // Drops the cached plans with a part registered on cluster task `task`:
  // a task that came back as a new process knows none of their handles,
  // so the next run of each signature registers its parts again.
  void ForgetTask(int task);
  const SessionOptions& options() const { return options_; }
  // How many plans were prepared so far (the plan cache's misses).
  int64_t plans_built() const;
  // How many runs have completed.
  int64_t runs() const;
  // Kernel time per op type over all runs and eager ops so far; null unless
  // options().collect_stats.
  const RunStats* stats() const;
  // The timeline of kernels and steps so far; null unless options().trace.
  const Tracer* tracer() const;

 private:
  struct Impl;
  const Graph* graph_;
  SessionOptions options_;
  ResourceMgr resources_;
  std::shared_mutex graph_mu_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfg
