#include "interp/runtime/placement_cost.h"

#include <algorithm>
#include <limits>

#include "interp/runtime/colocation.h"
#include "ops/core/op_cost.h"

namespace tfg {
namespace {

// Rates per device type. A CPU core: arithmetic at ~2 flops/ns and a small
// fixed cost per kernel. A GPU: ~100x the arithmetic, but each kernel pays
// for its launch and for the completion thread's wake-up. Copies: between
// CPU devices of one process at ~4 bytes/ns; between host and GPU memory
// at ~10 bytes/ns after a latency (pinned staging, stream events, a
// completion callback), which keeps small tensors where they are.
struct Rates {
  double nanos_per_flop;
  double kernel_overhead_nanos;
};
constexpr Rates kCpuRates = {0.5, 200};
constexpr Rates kGpuRates = {0.005, 5000};
constexpr double kTransferLatencyNanos = 2000;
constexpr double kNanosPerByte = 0.25;
constexpr double kGpuTransferLatencyNanos = 10000;
constexpr double kGpuNanosPerByte = 0.1;

}  // namespace

double ComputeCostNanos(const Node& node, DeviceType type) {
  const Rates& r = type == DeviceType::kGpu ? kGpuRates : kCpuRates;
  return r.kernel_overhead_nanos + r.nanos_per_flop * OpCost(node);
}

double TransferCostNanos(const Output& o, DeviceType from, DeviceType to) {
  const double bytes = KnownElements(o.shape()) * static_cast<double>(DTypeSize(o.dtype()));
  if (from == DeviceType::kGpu || to == DeviceType::kGpu) return kGpuTransferLatencyNanos + kGpuNanosPerByte * bytes;
  return kTransferLatencyNanos + kNanosPerByte * bytes;
}

std::vector<int32_t> GreedyEarliestFinish(const Graph& g, const PlacementProblem& problem) {
  std::vector<int32_t> device(g.num_nodes(), -1);
  std::vector<int32_t> group_device(g.num_nodes(), -1);  // by group id
  std::vector<double> finish(g.num_nodes(), 0);
  std::vector<double> free_at(problem.num_devices, 0);
  auto type_of = [&](int d) {
    return d < static_cast<int>(problem.device_types.size()) ? problem.device_types[d] : DeviceType::kCpu;
  };
  for (const Node* n : NodesInTopologicalOrder(g)) {
    const int32_t id = n->id();
    auto finish_on = [&](int d) {
      double start = free_at[d];
      for (const Output& in : n->inputs()) {
        const int32_t src = in.node->id();
        if (device[src] < 0) continue;  // a loop's back edge
        const double transfer = device[src] != d ? TransferCostNanos(in, type_of(device[src]), type_of(d)) : 0;
        start = std::max(start, finish[src] + transfer);
      }
      for (const Node* c : n->control_inputs()) {
        if (device[c->id()] >= 0) start = std::max(start, finish[c->id()]);
      }
      return start + ComputeCostNanos(*n, type_of(d));
    };
    int32_t& chosen = group_device[problem.group[id]];
    if (chosen < 0) {
      double best = std::numeric_limits<double>::infinity();
      for (int d : problem.allowed[id]) {
        double f = finish_on(d);
        if (f < best) {
          best = f;
          chosen = d;
        }
      }
    }
    device[id] = chosen;
    finish[id] = finish_on(chosen);
    free_at[chosen] = finish[id];
  }
  return device;
}

}  // namespace tfg
