#include "ops/queue/tuple_batch.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace tfg::queue {
namespace {

// Copies `count` elements from src[src_at] to dst[dst_at]; strings are
// objects, everything else plain bytes.
void CopyElements(const Tensor& src, int64_t src_at, Tensor& dst, int64_t dst_at, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == DType::kString) {
    std::copy_n(src.data<std::string>() + src_at, count, dst.data<std::string>() + dst_at);
    return;
  }
  const size_t size = DTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_at * size,
              static_cast<const char*>(src.raw_data()) + src_at * size, static_cast<size_t>(count) * size);
}

Result<Tensor> Allocate(DType dtype, TensorShape shape) {
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), dtype, std::move(shape)));
  // Padding must read as zeros; strings start empty already.
  if (dtype != DType::kString && t.raw_data() != nullptr) std::memset(t.raw_data(), 0, t.bytes());
  return t;
}

// Copies `src` into the block of `dst` that starts at element `base` and
// has shape `block` (each dimension at least src's): row by row along
// the last dimension, leaving the padding as it is.
void CopyPadded(const Tensor& src, const std::vector<int64_t>& block, Tensor& dst, int64_t base) {
  const int rank = src.rank();
  if (rank == 0) {
    CopyElements(src, 0, dst, base, 1);
    return;
  }
  const int64_t row = src.dim(rank - 1);
  const int64_t rows = row == 0 ? 0 : src.num_elements() / row;
  std::vector<int64_t> index(rank - 1, 0);  // index of the current row in src
  for (int64_t r = 0; r < rows; ++r) {
    int64_t at = 0;
    for (int d = 0; d < rank - 1; ++d) at = at * block[d] + index[d];
    CopyElements(src, r * row, dst, base + at * block[rank - 1], row);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < src.dim(d)) break;
      index[d] = 0;
    }
  }
}

// The batch's element shape: the common shape, or with `pad` the largest
// size of each dimension.
Result<std::vector<int64_t>> ElementShape(const std::vector<Tuple>& elements, size_t c, bool pad,
                                          const std::string& what) {
  const TensorShape& first = elements[0][c].shape();
  std::vector<int64_t> dims = first.dims();
  for (const Tuple& e : elements) {
    const TensorShape& s = e[c].shape();
    if (s == first) continue;
    if (!pad || s.rank() != first.rank()) {
      return InvalidArgument("{}: cannot batch component {}: its elements have shapes {} and {}{}", what, c,
                             first.ToString(), s.ToString(),
                             pad ? "" : "; give the queue shapes=, or use padding_fifo_queue for varying sizes");
    }
    for (int d = 0; d < s.rank(); ++d) dims[d] = std::max(dims[d], s.dim(d));
  }
  return dims;
}

}  // namespace

Result<std::vector<Tuple>> Unbatch(const Tuple& batch, int64_t n) {
  std::vector<Tuple> elements(static_cast<size_t>(n));
  for (const Tensor& component : batch) {
    std::vector<int64_t> dims(component.shape().dims().begin() + 1, component.shape().dims().end());
    const TensorShape shape(dims);
    const int64_t per = shape.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      TFG_ASSIGN_OR_RETURN(Tensor slice, Tensor::Allocate(HostAllocator(), component.dtype(), shape));
      CopyElements(component, i * per, slice, 0, per);
      elements[static_cast<size_t>(i)].push_back(std::move(slice));
    }
  }
  return elements;
}

Status CheckStackable(const std::vector<Tuple>& elements, bool pad, const std::string& what) {
  if (elements.empty()) return Status::OK();
  for (size_t c = 0; c < elements[0].size(); ++c) {
    TFG_RETURN_IF_ERROR(ElementShape(elements, c, pad, what).status());
  }
  return Status::OK();
}

Result<Tensor> Stack(const std::vector<Tuple>& elements, size_t c, bool pad, const std::string& what) {
  if (elements.empty()) return Internal("{}: nothing to batch", what);
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> block, ElementShape(elements, c, pad, what));
  std::vector<int64_t> dims{static_cast<int64_t>(elements.size())};
  dims.insert(dims.end(), block.begin(), block.end());
  TFG_ASSIGN_OR_RETURN(Tensor batch, Allocate(elements[0][c].dtype(), TensorShape(dims)));
  const int64_t per = TensorShape(block).num_elements();
  for (size_t i = 0; i < elements.size(); ++i) {
    const Tensor& src = elements[i][c];
    const int64_t base = static_cast<int64_t>(i) * per;
    if (src.shape().dims() == block) {
      CopyElements(src, 0, batch, base, per);
    } else {
      CopyPadded(src, block, batch, base);
    }
  }
  return batch;
}

}  // namespace tfg::queue
