#include "ops/math/broadcast.h"

namespace tfg {

BroadcastPlan::BroadcastPlan(const TensorShape& out, std::initializer_list<const TensorShape*> inputs)
    : num_inputs_(static_cast<int>(inputs.size())) {
  const int r = out.rank();
  // Per kept output dim: its size and, per input, whether it broadcasts there.
  std::vector<std::array<bool, kMaxBroadcastInputs>> flags;
  for (int d = 0; d < r; ++d) {
    const int64_t size = out.dim(d);
    if (size == 1) continue;  // contributes nothing to any offset
    std::array<bool, kMaxBroadcastInputs> f{};
    int k = 0;
    for (const TensorShape* in : inputs) {
      const int id = in->rank() - r + d;
      f[k++] = id < 0 || in->dim(id) == 1;
    }
    if (!flags.empty() && flags.back() == f) {
      dims_.back() *= size;  // same pattern as the outer neighbour: merge
    } else {
      dims_.push_back(size);
      flags.push_back(f);
    }
  }
  if (dims_.empty()) {
    dims_.push_back(1);
    flags.push_back({});
  }
  for (int k = 0; k < num_inputs_; ++k) {
    strides_[k].assign(dims_.size(), 0);
    int64_t running = 1;
    for (int d = rank() - 1; d >= 0; --d) {
      if (flags[d][k]) continue;
      strides_[k][d] = running;
      running *= dims_[d];
    }
  }
}

}  // namespace tfg
