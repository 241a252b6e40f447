#include "ops/math/fused/block_gather.h"

#include <algorithm>
#include <cstring>

namespace tfg::fused {

InputView::InputView(const Tensor& t, const TensorShape& out)
    : data_(static_cast<const char*>(t.raw_data())), elem_size_(DTypeSize(t.dtype())) {
  const int64_t n = t.num_elements();
  if (n == out.num_elements()) {
    mode_ = Mode::kSame;  // broadcasting with as many elements changes no layout
  } else if (n == 1) {
    mode_ = Mode::kOne;
  } else {
    mode_ = Mode::kGather;
    const int rank = out.rank(), offset = out.rank() - t.shape().rank();
    dims_.assign(out.dims().begin(), out.dims().end());
    strides_.assign(rank, 0);
    int64_t stride = 1;
    for (int d = rank - 1; d >= offset; --d) {
      const int64_t size = t.shape().dim(d - offset);
      strides_[d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
}

// Doubling copies: a memcpy call per element (its size is known only at
// run time) took two thirds of a fused 8-op chain on 32K elements, since
// every thread's scratch spreads each one-element input once per run.
void InputView::Spread(char* dst, int64_t count) const {
  if (mode_ != Mode::kOne || count <= 0) return;
  std::memcpy(dst, data_, elem_size_);
  for (int64_t filled = 1; filled < count;) {
    const int64_t n = std::min(filled, count - filled);
    std::memcpy(dst + filled * elem_size_, dst, n * elem_size_);
    filled += n;
  }
}

// Walks the output's index like an odometer, one innermost run at a time.
void InputView::Gather(int64_t start, int64_t len, char* own) const {
  const int rank = static_cast<int>(dims_.size());
  std::vector<int64_t> idx(rank);
  int64_t off = 0, rem = start;
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = rem % dims_[d];
    rem /= dims_[d];
    off += idx[d] * strides_[d];
  }
  const int64_t inner = dims_[rank - 1], inner_stride = strides_[rank - 1];
  for (int64_t pos = 0; pos < len;) {
    const int64_t run = std::min(inner - idx[rank - 1], len - pos);
    char* dst = own + pos * elem_size_;
    if (inner_stride == 1) {
      std::memcpy(dst, data_ + off * elem_size_, run * elem_size_);
    } else {
      for (int64_t j = 0; j < run; ++j) std::memcpy(dst + j * elem_size_, data_ + off * elem_size_, elem_size_);
    }
    pos += run;
    idx[rank - 1] += run;
    off += run * inner_stride;
    for (int d = rank - 1; d > 0 && idx[d] == dims_[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      off += strides_[d - 1] - dims_[d] * strides_[d];
    }
  }
}

}  // namespace tfg::fused
