// Walking a row-major output while reading inputs that broadcast to it
// NumPy-style. Dimensions are first collapsed (size-1 output dims dropped,
// neighbours with the same broadcast pattern merged), so same-shape and
// scalar cases become a single contiguous run and general cases need few
// index updates. No allocation per element.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ops/core/shape.h"

namespace tfg {

inline constexpr int kMaxBroadcastInputs = 3;

class BroadcastPlan {
 public:
  // Every input must broadcast to `out` (checked by the caller).
  BroadcastPlan(const TensorShape& out, std::initializer_list<const TensorShape*> inputs);

  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Element stride of input k along collapsed dim d: 0 where it broadcasts.
  int64_t stride(int k, int d) const { return strides_[k][d]; }
  // Stride along the innermost dim, i.e. within one run (0 or 1).
  int64_t inner_stride(int k) const { return strides_[k].back(); }

  // Calls fn(out_offset, in_offsets, len) for each maximal run of the
  // innermost dimension inside the flat output range [begin, end). Input k
  // element j of the run is at in_offsets[k] + j * inner_stride(k).
  template <typename Fn>
  void ForEachRun(int64_t begin, int64_t end, Fn&& fn) const;

 private:
  int num_inputs_;
  std::vector<int64_t> dims_;
  std::array<std::vector<int64_t>, kMaxBroadcastInputs> strides_;
};

template <typename Fn>
void BroadcastPlan::ForEachRun(int64_t begin, int64_t end, Fn&& fn) const {
  const int r = rank();
  std::vector<int64_t> idx(r);
  std::array<int64_t, kMaxBroadcastInputs> off{};
  int64_t rem = begin;
  for (int d = r - 1; d >= 0; --d) {
    idx[d] = rem % dims_[d];
    rem /= dims_[d];
    for (int k = 0; k < num_inputs_; ++k) off[k] += idx[d] * strides_[k][d];
  }
  const int64_t inner = dims_[r - 1];
  for (int64_t pos = begin; pos < end;) {
    const int64_t len = std::min(inner - idx[r - 1], end - pos);
    fn(pos, off, len);
    pos += len;
    idx[r - 1] += len;
    for (int k = 0; k < num_inputs_; ++k) off[k] += len * strides_[k][r - 1];
    // Carry into outer dimensions like an odometer.
    for (int d = r - 1; d > 0 && idx[d] == dims_[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (int k = 0; k < num_inputs_; ++k) off[k] += strides_[k][d - 1] - dims_[d] * strides_[k][d];
    }
  }
}

}  // namespace tfg
