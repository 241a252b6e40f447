// Splitting a placed graph per device (white paper §3.2.2). Each data edge
// between devices becomes one _send on the producer's device and one _recv
// on the consumer's, shared by every consumer of that tensor on that device;
// a control edge between devices becomes a _send/_recv of a dummy scalar
// that carries only the producer's completion (and deadness).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "interp/runtime/device_set.h"
#include "ops/core/graph.h"

namespace tfg {

// One device's part: its own graph (the placed nodes with their names,
// spans and attrs, plus the transfers), and which of the run's feeds,
// fetches and targets it serves. Its _send nodes are targets.
struct GraphPartition {
  int device = 0;  // index into the DeviceSet
  std::unique_ptr<Graph> graph;
  std::vector<Output> feeds;
  std::vector<int> feed_index;  // position of each feed among the run's feeds
  std::vector<Output> fetches;
  std::vector<int> fetch_index;  // position of each fetch among the run's fetches
  std::vector<Node*> targets;
};

struct PartitionedGraph {
  std::vector<GraphPartition> partitions;  // by first appearance in topological order
  int64_t sends = 0;                       // data and control transfers
};

// `g` must be pruned to what the run needs, with fed outputs on placeholders
// (as OptimizeGraph leaves it), and `device_of` (by node id) must keep each
// while_loop on one device (as PlaceGraph does).
Result<PartitionedGraph> PartitionGraph(const Graph& g, const std::vector<int32_t>& device_of,
                                        const DeviceSet& devices, const std::vector<Output>& feeds,
                                        const std::vector<Output>& fetches, const std::vector<Node*>& targets);

}  // namespace tfg
