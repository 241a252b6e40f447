#include "interp/runtime/placer.h"

#include <algorithm>
#include <fmt/format.h>

#include "interp/runtime/colocation.h"
#include "interp/runtime/placement_cost.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Devices of a type without a kernel for the node's op are ruled out.
std::vector<int> WithKernel(const Node& n, const DeviceSet& devices, std::vector<int> candidates) {
  std::vector<int> out;
  for (int d : candidates) {
    if (OpRegistry::Global().FindKernel(n.op(), devices.device(d)->type(), n.attrs()).ok()) out.push_back(d);
  }
  return out;
}

Status CannotPlace(Status s, const Node& n) {
  s.Prepend(fmt::format("cannot place '{}': ", n.name()));
  return s.WithSpan(n.span());
}

// The devices a node's own request allows (every device when it has
// none) that have a kernel for it. A node without a device type prefers
// `default_type`, and falls back to any type only when that type has no
// kernel for its op.
Result<std::vector<int>> RequestedDevices(const Node& n, const DeviceSet& devices, const std::string& default_type) {
  DeviceRequest r = SplitDeviceRequest(n.requested_device());
  auto spec = DeviceSpec::Parse(r.device);
  if (!spec.ok()) return CannotPlace(spec.status(), n);
  if (spec->type.empty() && !default_type.empty()) {
    DeviceSpec preferred = *spec;
    preferred.type = default_type;
    auto matching = devices.Matching(preferred);
    if (!matching.ok()) return CannotPlace(matching.status(), n);
    std::vector<int> usable = WithKernel(n, devices, std::move(*matching));
    if (!usable.empty()) return usable;
  }
  auto matching = devices.Matching(*spec);
  if (!matching.ok()) return CannotPlace(matching.status(), n);
  std::vector<int> usable = WithKernel(n, devices, *matching);
  if (usable.empty()) {
    return CannotPlace(InvalidArgument("no kernel for it on {}", spec->empty() ? "any device" : spec->ToString()), n);
  }
  return usable;
}

std::vector<int> Intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::string RequestText(const Node& n) {
  std::string d = SplitDeviceRequest(n.requested_device()).device;
  return d.empty() ? std::string("any device") : d;
}

// `n` must share a device with `first` (which constrained the group first)
// but no device satisfies both.
Status Conflict(const Node& n, const Node& first, const ColocationGroups& groups) {
  const std::string& why = groups.reason(n.id()).empty() ? groups.reason(first.id()) : groups.reason(n.id());
  Status s(Code::kInvalidArgument,
           fmt::format("contradictory device constraints: {} '{}' asks for {}, but it {} and so must run on the "
                       "device of {} '{}', which asks for {}",
                       n.op_name(), n.name(), RequestText(n), why, first.op_name(), first.name(), RequestText(first)),
           n.span());
  s.AddNote(first.span(), fmt::format("'{}' asks for {} here", first.name(), RequestText(first)));
  return s;
}

// One device: every request must name it, and there is nothing to choose.
Result<std::vector<int32_t>> PlaceOnOne(const Graph& g, const DeviceSet& devices, const std::string& default_type) {
  for (const auto& node : g.nodes()) TFG_RETURN_IF_ERROR(CheckPlaceable(*node, devices, default_type));
  return std::vector<int32_t>(g.num_nodes(), 0);
}

bool NamesJob(const Node& n) {
  auto spec = DeviceSpec::Parse(SplitDeviceRequest(n.requested_device()).device);
  return spec.ok() && !spec->job.empty();
}

// Work goes to another process (worker mode) only when some member of its
// group asks for a job: the others keep to this process's devices.
void KeepUnnamedJobsLocal(const Graph& g, const DeviceSet& devices, const std::vector<int32_t>& group_of,
                          std::vector<std::vector<int>>& group_allowed) {
  std::vector<bool> names_job(g.num_nodes(), false);
  for (const auto& node : g.nodes()) {
    if (NamesJob(*node)) names_job[group_of[node->id()]] = true;
  }
  for (size_t group = 0; group < group_allowed.size(); ++group) {
    if (names_job[group]) continue;
    std::vector<int> local;
    for (int d : group_allowed[group]) {
      if (devices.spec(d).job == kLocalJob) local.push_back(d);
    }
    if (!local.empty()) group_allowed[group] = std::move(local);
  }
}

// --device TYPE: a group that can run on a device of TYPE (every member
// has a kernel there, and no member asked for another type) runs there.
// No device of TYPE at all is an error, as a request for one is.
Status PreferType(const DeviceSet& devices, const std::string& type, std::vector<std::vector<int>>& group_allowed) {
  DeviceSpec preferred;
  preferred.type = type;
  TFG_ASSIGN_OR_RETURN(std::vector<int> matching, devices.Matching(preferred));
  for (std::vector<int>& allowed : group_allowed) {
    std::vector<int> both = Intersect(allowed, matching);
    if (!both.empty()) allowed = std::move(both);
  }
  return Status::OK();
}

}  // namespace

Status CheckPlaceable(const Node& n, const DeviceSet& devices, const std::string& default_type) {
  if (n.requested_device().empty() && default_type.empty()) return Status::OK();
  return RequestedDevices(n, devices, default_type).status();
}

Result<std::vector<int32_t>> PlaceGraph(const Graph& g, const DeviceSet& devices, const std::string& default_type) {
  if (devices.size() == 1) return PlaceOnOne(g, devices, default_type);
  ColocationGroups groups(g);
  std::vector<int> all(devices.size());
  for (int i = 0; i < devices.size(); ++i) all[i] = i;
  PlacementProblem problem;
  problem.num_devices = devices.size();
  for (Device* d : devices.devices()) problem.device_types.push_back(d->type());
  problem.group.resize(g.num_nodes());
  std::vector<std::vector<int>> group_allowed(g.num_nodes(), all);  // by group id
  std::vector<const Node*> constrained_by(g.num_nodes(), nullptr);   // by group id
  for (const auto& node : g.nodes()) {
    const int32_t group = groups.group_of(node->id());
    problem.group[node->id()] = group;
    // The preferred type is a preference: it is applied to whole groups
    // below, so that a variable without a kernel there and its
    // initializer, which has one, still share a device.
    TFG_ASSIGN_OR_RETURN(std::vector<int> allowed, RequestedDevices(*node, devices, /*default_type=*/""));
    std::vector<int> both = Intersect(group_allowed[group], allowed);
    if (both.empty()) {
      const Node* first = constrained_by[group] != nullptr ? constrained_by[group] : node.get();
      return Conflict(*node, *first, groups);
    }
    if (both.size() < group_allowed[group].size() && constrained_by[group] == nullptr) {
      constrained_by[group] = node.get();
    }
    group_allowed[group] = std::move(both);
  }
  KeepUnnamedJobsLocal(g, devices, problem.group, group_allowed);
  if (!default_type.empty()) TFG_RETURN_IF_ERROR(PreferType(devices, default_type, group_allowed));
  problem.allowed.resize(g.num_nodes());
  for (const auto& node : g.nodes()) problem.allowed[node->id()] = group_allowed[problem.group[node->id()]];
  return GreedyEarliestFinish(g, problem);
}

}  // namespace tfg
