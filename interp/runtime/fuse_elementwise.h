// Elementwise fusion, the last rewrite of OptimizeGraph
// (graph_optimizer.h): maximal connected groups of elementwise ops (the
// ops of ops/math/fused/block_ops.h: arithmetic with broadcasting,
// comparisons, unary math, where, cast), plus a reduction the group ends
// in, become one `fused_elementwise` node whose kernel makes one pass over
// memory. Its result is the last member's; a member whose value a node
// outside the group uses, or a run fetches, is an extra output computed in
// the same pass, when its static shape is the result's (known and big) and
// the fused node closes no cycle; otherwise it ends its group. Not fused:
// nodes with control edges either way, nodes on different devices, string
// tensors, and groups whose result is known to be small (at most 4096
// elements: there the node-by-node executor and the scalar loop machine
// are faster).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// Where a node runs, as far as fusion cares.
enum class FuseTarget {
  kCpu,   // the CPU kernel (fused/block_ops.h): everything below
  kGpu,   // the GPU kernel (fused/fused_cuda_source.h): ops with a GPU
          // functor, one dtype, no trailing reduction
  kNone,  // not fused (another task's device)
};

struct FuseOptions {
  // Fused kernels then fail at the first member that makes a NaN or Inf,
  // naming it, as --check-numerics does for unfused nodes. GPU groups are
  // then not made: the unfused GPU nodes are checked one by one.
  bool check_numerics = false;
  // Where each node runs, once it is placed; unset: on the CPU. Groups
  // join only nodes of one device (requested and assigned).
  std::function<FuseTarget(const Node&)> target_of;
};

struct FuseResult {
  int64_t groups = 0;   // fused nodes added
  int64_t members = 0;  // nodes they stand for
};

// False when the environment has TFG_FUSE_ELEMENTWISE=0 (for comparisons):
// then nothing is fused.
bool ElementwiseFusionEnabled();

// Adds the fused nodes to `g` and moves every use of a group's result and
// extra outputs (consumers and `fetches`) to its fused node; the members
// are left without users for the caller to prune.
Result<FuseResult> FuseElementwise(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets,
                                   const FuseOptions& options);

// "fused_elementwise[mul+add+sum]" for a fused node, else its op: how
// --trace and --stats name a kernel.
std::string KernelLabel(const Node& node);
// "\nmembers: mul_1, add, ..." (the member nodes' names) for a fused
// node, else empty: `tfg graph --optimized` shows them.
std::string FusedMemberLines(const Node& node);

}  // namespace tfg
