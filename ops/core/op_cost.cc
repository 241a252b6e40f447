#include "ops/core/op_cost.h"

#include "ops/core/op_registry.h"

namespace tfg {

double KnownElements(const PartialShape& s) {
  if (!s.known_rank()) return 1;
  double n = 1;
  for (int64_t d : s.dims()) n *= d > 0 ? static_cast<double>(d) : (d == 0 ? 0 : 1);
  return n;
}

double KnownDim(const PartialShape& s, int i) {
  if (!s.known_rank() || i < 0 || i >= s.rank()) return 1;
  int64_t d = s.dims()[i];
  return d > 0 ? static_cast<double>(d) : 1;
}

double ElementwiseCost(const Node& node) {
  double elements = 0;
  for (const Output& in : node.inputs()) elements += KnownElements(in.shape());
  for (const PartialShape& s : node.output_shapes()) elements += KnownElements(s);
  return elements;
}

double OpCost(const Node& node) {
  const CostFn& fn = node.op().cost_fn;
  return fn ? fn(node) : ElementwiseCost(node);
}

}  // namespace tfg
