#include "interp/placement_cost.h"

#include <algorithm>
#include <limits>

#include "interp/colocation.h"

namespace tfg {
namespace {

// Rough rates of one CPU core: arithmetic at ~2 flops/ns, a fixed cost per
// kernel launch, and copies at ~4 bytes/ns after a fixed latency.
constexpr double kNanosPerFlop = 0.5;
constexpr double kKernelOverheadNanos = 200;
constexpr double kTransferLatencyNanos = 2000;
constexpr double kNanosPerByte = 0.25;

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

double ComputeCostNanos(const Node& node) {
  const std::string& op = node.op_name();
  if (op == "matmul" || op == "batch_matmul") return kKernelOverheadNanos + kNanosPerFlop * MatMulFlops(node);
  double elements = 0;
  for (const Output& in : node.inputs()) elements += Elements(in.shape());
  for (const PartialShape& s : node.output_shapes()) elements += Elements(s);
  return kKernelOverheadNanos + kNanosPerFlop * elements;
}

double TransferCostNanos(const Output& o) {
  const double bytes = Elements(o.shape()) * static_cast<double>(DTypeSize(o.dtype()));
  return kTransferLatencyNanos + kNanosPerByte * bytes;
}

std::vector<int32_t> GreedyEarliestFinish(const Graph& g, const PlacementProblem& problem) {
  std::vector<int32_t> device(g.num_nodes(), -1);
  std::vector<int32_t> group_device(g.num_nodes(), -1);  // by group id
  std::vector<double> finish(g.num_nodes(), 0);
  std::vector<double> free_at(problem.num_devices, 0);
  for (const Node* n : NodesInTopologicalOrder(g)) {
    const int32_t id = n->id();
    auto finish_on = [&](int d) {
      double start = free_at[d];
      for (const Output& in : n->inputs()) {
        const int32_t src = in.node->id();
        if (device[src] < 0) continue;  // a loop's back edge
        start = std::max(start, finish[src] + (device[src] != d ? TransferCostNanos(in) : 0));
      }
      for (const Node* c : n->control_inputs()) {
        if (device[c->id()] >= 0) start = std::max(start, finish[c->id()]);
      }
      return start + ComputeCostNanos(*n);
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
