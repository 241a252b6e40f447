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

#include "ops/core/graph.h"
#include "ops/core/kernel.h"

namespace tfg {

class Device;
class ScalarLoop;

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

// How the executor treats a node. Control-flow nodes (white paper §4.4)
// are handled by the executor itself: a merge is ready at its first live
// input, enter/exit/next_iteration move tensors between frames and
// iterations. Everything else is an ordinary kernel.
// kControlTrigger: runs (as an op) even when a control input is dead.
enum class NodeKind : uint8_t { kOp, kSwitch, kMerge, kEnter, kExit, kNextIteration, kControlTrigger };

// Everything the executor needs about one node. Per-step state (pending
// counts, tensors) lives in the step, not here: a plan is shared by
// concurrent steps.
struct PlanNode {
  const Node* node = nullptr;
  KernelConstruction construction;  // the kernel's view of the node; stable address
  std::unique_ptr<OpKernel> kernel;
  int32_t frame = 0;         // the static frame the node runs in (0: the root)
  int32_t local = 0;         // index among its frame's nodes (pending counts)
  int32_t input_start = 0;   // first input slot, in its frame's iteration state
  int32_t num_inputs = 0;
  int32_t num_outputs = 0;
  int32_t initial_pending = 0;  // data + control edges in; a merge: 1 + 2 * control edges
  int32_t edges_begin = 0, edges_end = 0;      // into Plan::edges
  int32_t control_begin = 0, control_end = 0;  // into Plan::control_edges
  NodeKind kind = NodeKind::kOp;
  bool expensive = true;
  bool async = false;
  bool constant_enter = false;  // enter: a loop invariant
  bool merge_index_used = false;  // merge: something reads its value_index
  bool outputs_may_be_dead = false;  // _recv: an output it leaves unset is dead
  int32_t enter_frame = -1;     // enter: the frame it enters
};

// A while_loop's body and condition as the plan sees them: the nodes
// between its enters and exits. A live frame is one instance of it (one
// per iteration of the enclosing frame that starts the loop).
struct StaticFrame {
  std::string name;        // the enters' frame_name
  int32_t parent = -1;     // -1: the root frame
  int32_t num_nodes = 0;
  int32_t num_input_slots = 0;
  int32_t num_enters = 0;  // enter nodes into it: all must arrive before it can finish
  int32_t parallel_iterations = 1;
  // Every node is a small CPU computation or control flow, with no loop
  // inside: each live instance runs start to end on the thread that
  // delivers its last enter (interp/runtime/executor_sequential.cc).
  bool sequential = false;
  // A sequential frame whose values are all numeric scalars, compiled to
  // a register machine (interp/runtime/scalar_loop.h); null otherwise.
  std::shared_ptr<const ScalarLoop> scalar;
  std::vector<int32_t> initial_pending;  // by local index
};

struct Plan;

// The per-step arrays of one iteration of a frame: pending counts, dead
// input counts (control flow only) and input slots. A step leaves every
// slot empty when it finishes, so plans recycle the root frame's: repeated
// runs allocate no slot arrays.
struct StepSlots {
  StepSlots(const StaticFrame& frame, bool control_flow);
  // Pending counts back to the frame's initial ones.
  void Reset(const StaticFrame& frame);

  std::unique_ptr<std::atomic<int32_t>[]> pending;  // by local index
  std::unique_ptr<int32_t[]> dead;                  // by local index; null without control flow
  std::vector<Tensor> inputs;                       // StaticFrame::num_input_slots
  // Control flow only, guarded by the frame's lock: ready or running nodes
  // of this iteration, and loops started from it still running.
  int32_t outstanding_ops = 0;
  int32_t outstanding_frames = 0;
};

struct Plan {
  // The optimized graph the plan's nodes live in (null: the script's own
  // graph, which outlives the plan). Declared first: destroyed last.
  std::shared_ptr<const Graph> graph;
  // Reset slots of the root frame, recycled or new. Thread-safe.
  std::unique_ptr<StepSlots> AcquireSlots() const;
  // Takes back the slots of a finished step (all slots empty).
  void ReleaseSlots(std::unique_ptr<StepSlots> slots) const;

  int64_t graph_edits = 0;  // Graph::edits() when built
  std::vector<PlanNode> nodes;
  std::vector<PlanEdge> edges;
  std::vector<int32_t> control_edges;  // consumer plan indices
  std::vector<FeedEdge> feed_edges;
  std::vector<int32_t> roots;          // nodes with no pending inputs (all in the root frame)
  std::vector<StaticFrame> frames;     // [0] is the root frame
  bool control_flow = false;           // any switch, merge or frame: the executor's slower path
  bool has_async = false;              // any asynchronous kernel (queues): the step may wait on others
  int32_t max_outputs = 0;             // the most outputs of any node
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
