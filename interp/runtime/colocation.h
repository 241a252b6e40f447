// Which nodes must run on one device, whatever the placer decides: nodes
// that use one resource (a variable's read, assigns and optimizer applies;
// a queue and its enqueues and dequeues), the nodes of one while_loop
// (with its nested loops), and nodes built inside `with colocate_with(x)`
// with x. The placer gives each group one device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

// A node's requested device splits into a device spec and, after '@',
// the name of the node it is colocated with ("/device:cpu:1@w", "@w").
struct DeviceRequest {
  std::string device;
  std::string colocate_with;
};
DeviceRequest SplitDeviceRequest(const std::string& requested);

// Nodes in an order where every node comes after its inputs, except a
// loop's merge, which comes before the next_iteration feeding it back.
std::vector<const Node*> NodesInTopologicalOrder(const Graph& g);

class ColocationGroups {
 public:
  explicit ColocationGroups(const Graph& g);

  // A representative node id of the node's group.
  int32_t group_of(int32_t node_id) const;
  // Why node `a` joined a group, for errors: "uses variable 'w'", ...
  // (the first reason recorded for it; "" when it is alone).
  const std::string& reason(int32_t node_id) const { return reason_[node_id]; }

 private:
  int32_t Find(int32_t x) const;
  void Union(int32_t a, int32_t b, const std::string& why);
  void JoinResources(const Graph& g);
  void JoinFrames(const Graph& g);
  void JoinRequested(const Graph& g);

  mutable std::vector<int32_t> parent_;
  std::vector<std::string> reason_;
};

}  // namespace tfg
