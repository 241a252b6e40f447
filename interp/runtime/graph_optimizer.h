// Graph optimization before execution (white paper §5.1; Grappler's
// constant folding and common subgraph elimination as the model). For one
// (feeds, fetches, targets) signature, OptimizeGraph builds a NEW graph that
// holds only what the fetches and targets need, with
//   * constant folding: a node whose inputs are all constants is evaluated
//     once with its own CPU kernel and replaced by a `constant` of the same
//     name, span and device;
//   * common subexpression elimination: nodes with the same op, attrs,
//     inputs, control inputs and device become one;
//   * elementwise fusion (fuse_elementwise.h): connected groups of
//     elementwise ops, and a reduction they end in, become one
//     `fused_elementwise` node that makes one pass over memory;
//   * dead-node pruning: whatever no fetch or target needs (including the
//     inputs of folded nodes and the members of fused groups) is not copied.
// Stateful ops, ops that touch variables, control-flow ops and nodes with
// control inputs are never folded or merged; nothing fed is folded. Every
// node goes through Graph::AddNode, so the new graph is checked like the
// one the script built, and keeps each node's name (random streams and
// default variable names derive from it), span, attrs and devices: errors
// at run time still point at the user's line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/runtime/fuse_elementwise.h"
#include "ops/core/graph.h"

namespace tfg {

class Device;

struct OptimizeOptions {
  bool constant_folding = true;
  bool common_subexpression_elimination = true;
  // A node is folded only when its shape function predicts every output
  // fully and no output has more elements than this, so folding never
  // blows up memory (the node then runs as usual).
  int64_t max_folded_elements = int64_t{1} << 20;
  // Folding stops once the folded constants of one graph hold this many
  // elements in all (each cached plan keeps its own).
  int64_t max_total_folded_elements = int64_t{1} << 26;
  // Before placement, fused kernels run on the CPU only: off when a node
  // may be placed on a GPU or another task (FusePlacedGraph fuses a placed
  // graph, GPU groups included).
  bool fuse_elementwise = true;
  // Where each node runs (FuseOptions::target_of); unset: the CPU.
  std::function<FuseTarget(const Node&)> fuse_target;
  // --check-numerics: fused kernels check every member's result.
  bool check_numerics = false;
};

struct OptimizeStats {
  int64_t folded = 0;  // nodes replaced by a constant
  int64_t merged = 0;  // nodes dropped as duplicates of an equal node
  int64_t pruned = 0;  // nodes of the input graph not needed any more
  int64_t fused = 0;   // nodes that became members of fused kernels
  int64_t fused_kernels = 0;
  // "folded 12 nodes, merged 3, pruned 40" (", fused 8 into 1 kernel" when any).
  std::string Summary() const;
};

struct OptimizedGraph {
  std::unique_ptr<Graph> graph;
  // The caller's feeds, fetches and targets, in the same order, as outputs
  // and nodes of `graph`. A fed output becomes an output of a placeholder
  // in `graph` (the fed node itself when it is a placeholder).
  std::vector<Output> feeds, fetches;
  std::vector<Node*> targets;
  OptimizeStats stats;
};

// Errors (each naming the node, with its span where it has one): a feed,
// fetch or target not in `graph` or naming an output it does not have, an
// output fed twice, a cycle other than a while_loop's (through control
// dependencies).
// A kernel that fails while folding is no error: the node stays, and fails
// at run time as it would have. `cpu` runs the folded kernels.
Result<OptimizedGraph> OptimizeGraph(const Graph& graph, const std::vector<Output>& feeds,
                                     const std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                     const OptimizeOptions& options, Device* cpu);

// What `tfg graph FILE --optimized` optimizes for: a script's run() calls
// are not known without running it, so every node that nothing consumes
// (by data or control edge) is the whole graph's result — its outputs are
// fetched, and a node without outputs is a target. Nothing is fed.
struct WholeGraphSignature {
  std::vector<Output> fetches;
  std::vector<Node*> targets;
};
WholeGraphSignature SinkSignature(const Graph& graph);

}  // namespace tfg
