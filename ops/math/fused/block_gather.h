// How a fused kernel reads one of its inputs block by block at the
// output's positions: in place when it has the output's layout, as one
// value when it has one element, else gathered NumPy-style into a scratch
// block (a bias row added to every row of a matrix).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/tensor.h"

namespace tfg::fused {

class InputView {
 public:
  // `t` must broadcast to `out` (the kernel checked).
  InputView(const Tensor& t, const TensorShape& out);

  // Elements [start, start + len) as read at the output's positions, and
  // their stride (0 or 1); `own` is scratch for len elements when the
  // input must be gathered.
  // Inline: the fused kernel asks for every operand of every step of every
  // block, and the two common cases are a pointer each.
  const void* Block(int64_t start, int64_t len, char* own, int64_t& stride) const {
    if (mode_ == Mode::kSame) {
      stride = 1;
      return data_ + start * static_cast<int64_t>(elem_size_);
    }
    if (mode_ == Mode::kOne) {
      stride = 0;
      return data_;
    }
    stride = 1;
    Gather(start, len, own);
    return own;
  }
  // A one-element input: its value `count` times at `dst` (for loops that
  // read with stride 1). Nothing for the others.
  void Spread(char* dst, int64_t count) const;

 private:
  void Gather(int64_t start, int64_t len, char* own) const;

  const char* data_;
  size_t elem_size_;
  enum class Mode { kSame, kOne, kGather } mode_;
  std::vector<int64_t> dims_;     // the output's dims
  std::vector<int64_t> strides_;  // the input's element stride along each, 0 where broadcast
};

}  // namespace tfg::fused
