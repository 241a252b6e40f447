// The placer's cost model (white paper §3.2.1): an estimate of each node's
// compute time from its op's cost function (ops/core/op_cost.h) and the
// device type's rates, of the time to move a
// tensor between devices from its size, and a greedy simulation that puts
// each node, in topological order, on the allowed device where it would
// finish earliest.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/device_type.h"
#include "ops/core/graph.h"

namespace tfg {

// Estimated nanoseconds to run `node` on a device of `type` (unknown
// dimensions count as 1).
double ComputeCostNanos(const Node& node, DeviceType type = DeviceType::kCpu);
// Estimated nanoseconds to move output `o` from a device of type `from` to
// one of type `to`.
double TransferCostNanos(const Output& o, DeviceType from = DeviceType::kCpu, DeviceType to = DeviceType::kCpu);

struct PlacementProblem {
  // By node id: the devices each node may go on (all must be non-empty),
  // and its colocation group (a node id; nodes of one group share a device).
  std::vector<std::vector<int>> allowed;
  std::vector<int32_t> group;
  int num_devices = 1;
  // By device index; a device past the end counts as a CPU.
  std::vector<DeviceType> device_types;
};

// The device index of every node by node id, choosing for each group the
// device where its first node (in topological order) finishes earliest,
// given where its inputs were placed and when each device is free. Ties go
// to the lower device index.
std::vector<int32_t> GreedyEarliestFinish(const Graph& g, const PlacementProblem& problem);

}  // namespace tfg
