// A run whose graph is placed on several devices: one Plan per device's
// partition (interp/runtime/partition.h), run side by side as steps of their own
// that exchange tensors through one rendezvous per run. A failing device
// cancels the others; the run reports the first real error (with the
// failing node's line), not the cancellations it caused.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "interp/runtime/device_set.h"
#include "interp/runtime/executor.h"
#include "interp/runtime/partition.h"
#include "interp/runtime/plan.h"

namespace tfg {

class RemoteTasks;

struct PartitionedPlan {
  struct Part {
    std::shared_ptr<const Plan> plan;  // keeps its partition's graph; null for a remote part
    int remote_task = -1;              // a part on another process: its task in the cluster
    uint64_t graph_handle = 0;         // what that task registered it as
    std::vector<int> feed_index;       // into the run's feeds
    std::vector<int> fetch_index;      // into the run's fetches
    // Where the plan runs: its feeds are copied there from host memory and
    // its fetches back (nothing to copy for a CPU device).
    Device* device = nullptr;
  };
  std::vector<Part> parts;
  int num_fetches = 0;
  int64_t sends = 0;
  int64_t graph_edits = 0;  // the script graph's Graph::edits() when built
};

// Builds each partition's plan on its device; a partition on a
// RemoteDevice is registered with its task instead (`cluster` then must
// not be null).
Result<std::shared_ptr<PartitionedPlan>> BuildPartitionedPlan(PartitionedGraph graph, const DeviceSet& devices,
                                                              int num_fetches, RemoteTasks* cluster = nullptr);

// Runs every part; `run_id` keys the run's transfers, and each part's step
// takes its own id from `next_step_id` (step containers are per step).
// Remote parts run on their task through `cluster`, and transfers then go
// through its network rendezvous.
Result<std::vector<Tensor>> RunPartitioned(const PartitionedPlan& plan, const std::vector<Tensor>& feeds,
                                           const ExecutorEnv& env, int64_t run_id,
                                           std::atomic<int64_t>& next_step_id, uint64_t seed,
                                           double timeout_seconds, CancellationManager* external,
                                           RemoteTasks* cluster = nullptr);

}  // namespace tfg
