// The dynamic context that `with` statements set for the nodes built inside
// them: device placement, name scope, control dependencies and the container
// of new variables. Scopes are dynamic, as in TensorFlow: a function called
// inside `with scope("a")` builds nodes named a/...
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "interp/runtime/device_spec.h"
#include "ops/core/graph.h"
#include "ops/core/status.h"

namespace tfg {

class ReplicaDeviceSetter;

class ScopeStack {
 public:
  struct State {
    DeviceSpec device;
    std::string name_prefix;  // "layer1/block2/" or ""
    std::vector<Node*> control_deps;
    std::string container;
    std::string colocate_with;  // a node name, or ""
    // The device that node asked for: a run whose graph lacks the node
    // (an init() of a slot variable) still finds its device.
    DeviceSpec colocate_device;
    // Inside `with device(replica_device_setter(...))`: the setter, the
    // device of the enclosing blocks, and what blocks inside the setter's
    // block asked for (merged over the ps device a variable gets).
    std::shared_ptr<ReplicaDeviceSetter> setter;
    DeviceSpec outside_setter;
    DeviceSpec inside_setter;
  };

  ScopeStack() : states_(1) {}

  const State& current() const { return states_.back(); }
  // The device request of new nodes: the device spec, then "@node" inside
  // `with colocate_with(node)` (interp/runtime/colocation.h reads it).
  std::string device() const;
  // The device request of a new variable of `bytes` bytes: a ps device of
  // the setter in force (advancing it), else device(). Colocation wins over
  // the setter: an optimizer's slot stays with its variable.
  std::string VariableDevice(int64_t bytes);
  const std::vector<Node*>& control_deps() const { return current().control_deps; }
  const std::string& container() const { return current().container; }
  // "layer1/" + base.
  std::string ScopedName(const std::string& base) const { return current().name_prefix + base; }

  // Each push starts from a copy of the current state; Pop restores it.
  void PushDevice(const DeviceSpec& spec, bool clear);
  void PushDeviceSetter(std::shared_ptr<ReplicaDeviceSetter> setter);
  // `name` is relative to the current scope; a name ending in '/'
  // ("layer1/kernel/") is absolute and replaces it, as in TensorFlow.
  void PushScope(const std::string& name);
  // `base`, or base_1, base_2, ... : the first that names no node and no
  // scope made by UniqueScope in the current scope yet (TensorFlow's
  // uniquification, so a second nn.dense is dense_1/...). Reserves it.
  std::string UniqueScope(const Graph& graph, const std::string& base);
  void PushDeps(const std::vector<Node*>& nodes);
  void PushContainer(const std::string& name);
  void PushColocate(const std::string& node_name, const DeviceSpec& node_device = DeviceSpec());
  void Pop();
  size_t depth() const { return states_.size(); }

 private:
  std::vector<State> states_;
  std::unordered_set<std::string> reserved_scopes_;  // full names, "layer1/dense"
};

// Pops the scope pushed just before it when leaving the block, also when the
// block fails.
class ScopeGuard {
 public:
  explicit ScopeGuard(ScopeStack& s) : stack_(s), depth_(s.depth()) {}
  ~ScopeGuard() {
    while (stack_.depth() >= depth_ && stack_.depth() > 1) stack_.Pop();
  }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  ScopeStack& stack_;
  size_t depth_;
};

// A scope name must be a valid node name part: letters, digits, _ . - and /
// between parts.
Status CheckScopeName(const std::string& name);
// The same rules for a node's own name (name="..."), before its scope.
Status CheckNodeName(const std::string& name);

}  // namespace tfg
