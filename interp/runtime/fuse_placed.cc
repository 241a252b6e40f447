#include "interp/runtime/fuse_placed.h"

#include <string>
#include <unordered_map>

#include "devices/device_copy.h"
#include "interp/runtime/remote_tasks.h"

namespace tfg {

Result<std::vector<int32_t>> FusePlacedGraph(OptimizedGraph &opt, const DeviceSet &devices, bool check_numerics,
                                             Device *cpu) {
  std::unordered_map<std::string, int32_t> index_of;
  for (int d = 0; d < devices.size(); ++d) index_of[devices.device(d)->name()] = d;
  auto device_of = [&](const Node &n) -> Device * {
    auto it = index_of.find(n.assigned_device());
    return it == index_of.end() ? nullptr : devices.device(it->second);
  };
  OptimizeOptions options;
  options.constant_folding = false;
  options.common_subexpression_elimination = false;
  options.check_numerics = check_numerics;
  options.fuse_target = [&](const Node &n) {
    const Device *d = device_of(n);
    if (d == nullptr || dynamic_cast<const RemoteDevice *>(d) != nullptr) return FuseTarget::kNone;
    if (UsesHostMemory(*d)) return FuseTarget::kCpu;
    return d->type() == DeviceType::kGpu ? FuseTarget::kGpu : FuseTarget::kNone;
  };
  TFG_ASSIGN_OR_RETURN(OptimizedGraph fused,
                       OptimizeGraph(*opt.graph, opt.feeds, opt.fetches, opt.targets, options, cpu));
  std::vector<int32_t> placed(fused.graph->num_nodes());
  for (const auto &node : fused.graph->nodes()) {
    auto it = index_of.find(node->assigned_device());
    if (it == index_of.end()) {
      return Status(Code::kInternal, "fusing a placed graph: " + node->name() + " lost its device", node->span());
    }
    placed[node->id()] = it->second;
  }
  fused.stats.folded = opt.stats.folded;
  fused.stats.merged = opt.stats.merged;
  fused.stats.pruned = opt.stats.pruned;
  opt = std::move(fused);
  return placed;
}

}  // namespace tfg
