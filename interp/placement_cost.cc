#include "interp/placement_cost.h"

#include <algorithm>
#include <limits>

#include "interp/colocation.h"

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

double Elements(const PartialShape& s) {
  if (!s.known_rank()) return 1;
  double n = 1;
  for (int64_t d : s.dims()) n *= d > 0 ? static_cast<double>(d) : (d == 0 ? 0 : 1);
  return n;
}

double Dim(const PartialShape& s, int i) {
  if (!s.known_rank() || i < 0 || i >= s.rank()) return 1;
  int64_t d = s.dims()[i];
  return d > 0 ? static_cast<double>(d) : 1;
}

// matmul: 2·m·n·k, where k is the inner dimension of the first input.
double MatMulFlops(const Node& node) {
  if (node.inputs().empty()) return 0;
  const PartialShape& a = node.inputs()[0].shape();
  const bool* transpose_a = node.attr<bool>("transpose_a");
  const int rank = !a.known_rank() ? 2 : a.rank();
  const double k = Dim(a, transpose_a && *transpose_a ? rank - 2 : rank - 1);
  return 2 * k * Elements(node.output_shapes()[0]);
}

}  // namespace

double ComputeCostNanos(const Node& node, DeviceType type) {
  const Rates& r = type == DeviceType::kGpu ? kGpuRates : kCpuRates;
  const std::string& op = node.op_name();
  if (op == "matmul" || op == "batch_matmul") return r.kernel_overhead_nanos + r.nanos_per_flop * MatMulFlops(node);
  double elements = 0;
  for (const Output& in : node.inputs()) elements += Elements(in.shape());
  for (const PartialShape& s : node.output_shapes()) elements += Elements(s);
  return r.kernel_overhead_nanos + r.nanos_per_flop * elements;
}

double TransferCostNanos(const Output& o, DeviceType from, DeviceType to) {
  const double bytes = Elements(o.shape()) * static_cast<double>(DTypeSize(o.dtype()));
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
