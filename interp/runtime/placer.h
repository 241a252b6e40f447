// Placement: which device of the session's DeviceSet runs each node.
// Constraints first — a node's requested device (possibly partial), and
// colocation (interp/runtime/colocation.h): each colocation group goes where all
// its members' requests allow, and contradictory requests fail naming both
// lines. Nodes left free are placed by the cost model
// (interp/runtime/placement_cost.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/runtime/device_set.h"
#include "ops/core/graph.h"

namespace tfg {

// The device index (into `devices`) of every node of `g`, by node id.
// Errors carry the span of the node whose request cannot be met.
// `default_type` ("cpu", "gpu" or "": any) is the device type a node
// without a type of its own prefers (--device); it must be in the set.
Result<std::vector<int32_t>> PlaceGraph(const Graph& g, const DeviceSet& devices,
                                        const std::string& default_type = "");

// Whether some device of the set can run `n` as it asks: the check
// PlaceGraph makes of every node, for a plan on the only device.
Status CheckPlaceable(const Node& n, const DeviceSet& devices, const std::string& default_type = "");

}  // namespace tfg
