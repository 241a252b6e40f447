// A prepared execution plan: the part of the graph one (fetches, feeds,
// targets) signature needs, in topological order, with kernels created and
// every edge resolved to an integer slot, so running a step does no graph
// work (no maps, no strings, no name lookups).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/framework/graph.h"
#include "ops/framework/kernel.h"

namespace tfg {

class Device;

// A data edge out of a node's output: into a consumer's input slot, or into
// the step's fetch results.
struct PlanEdge {
  int32_t src_output = 0;  // output index on the producer
  int32_t dst_node = -1;   // plan index of the consumer; -1: a fetch
  int32_t dst_slot = 0;    // global input slot, or fetch index
  bool last_use = false;   // the last edge reading this output: may move it
};

// A fed value delivered straight to a consumer slot or a fetch.
struct FeedEdge {
  int32_t feed_index = 0;  // into the run's feeds
  int32_t dst_node = -1;   // -1: a fetch
  int32_t dst_slot = 0;
};

// Everything the executor needs about one node. Per-step state (pending
// counts, tensors) lives in the step, not here: a plan is shared by
// concurrent steps. Control flow will add frame/iteration info here.
struct PlanNode {
  const Node* node = nullptr;
  KernelConstruction construction;  // the kernel's view of the node; stable address
  std::unique_ptr<OpKernel> kernel;
  int32_t input_start = 0;   // first global input slot
  int32_t num_inputs = 0;
  int32_t output_start = 0;  // first global output slot
  int32_t num_outputs = 0;
  int32_t initial_pending = 0;  // data + control edges in
  int32_t edges_begin = 0, edges_end = 0;      // into Plan::edges
  int32_t control_begin = 0, control_end = 0;  // into Plan::control_edges
  bool expensive = true;
  bool async = false;
};

struct Plan;

// The per-step arrays of one iteration of a plan's root frame: pending
// counts and tensor slots. Control flow will add one per live (frame,
// iteration). A step leaves every slot empty when it finishes, so plans
// recycle them: repeated runs allocate no slot arrays.
struct StepSlots {
  explicit StepSlots(const Plan& plan);
  // Pending counts back to the plan's initial ones.
  void Reset(const Plan& plan);

  std::unique_ptr<std::atomic<int32_t>[]> pending;  // per plan node
  std::vector<Tensor> inputs;                       // Plan::num_input_slots
  std::vector<Tensor> outputs;                      // Plan::num_output_slots
};

struct Plan {
  // Reset slots, recycled or new. Thread-safe.
  std::unique_ptr<StepSlots> AcquireSlots() const;
  // Takes back the slots of a finished step (all slots empty).
  void ReleaseSlots(std::unique_ptr<StepSlots> slots) const;

  int64_t graph_edits = 0;  // Graph::edits() when built
  std::vector<PlanNode> nodes;
  std::vector<PlanEdge> edges;
  std::vector<int32_t> control_edges;  // consumer plan indices
  std::vector<FeedEdge> feed_edges;
  std::vector<int32_t> roots;          // nodes with no pending inputs
  int32_t num_input_slots = 0;
  int32_t num_output_slots = 0;
  int32_t num_fetches = 0;

 private:
  mutable std::mutex slots_mu_;
  mutable std::vector<std::unique_ptr<StepSlots>> free_slots_;  // guarded by slots_mu_
};

// Prunes `graph` backwards from `fetches` and `targets` (stopping at fed
// outputs), orders it, and creates each node's kernel on `device`. Errors:
// an output or node not in the graph, a fetch of a node without outputs, a
// feed given twice, a cycle, a missing kernel — each naming the node.
Result<std::shared_ptr<Plan>> BuildPlan(const Graph& graph, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                        Device* device);

}  // namespace tfg

namespace tfg {

// Names the failing node in a kernel's error: prefixes "{op} '{name}': "
// (unless the message already starts with "{op} '{name}'") and attaches the
// node's span.
Status AnnotateNodeError(Status status, const Node& node);

}  // namespace tfg
