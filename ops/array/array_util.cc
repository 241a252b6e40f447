#include "ops/array/array_util.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"

namespace tfg::array {

void CopyElements(DType dtype, void* dst, const void* src, int64_t n) {
  if (n <= 0) return;
  if (dtype == DType::kString) {
    auto* d = static_cast<std::string*>(dst);
    const auto* s = static_cast<const std::string*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(n) * DTypeSize(dtype));
}

void FillElements(DType dtype, void* dst, const void* value, int64_t n) {
  if (n <= 0) return;
  if (dtype == DType::kString) {
    auto* d = static_cast<std::string*>(dst);
    const auto& v = *static_cast<const std::string*>(value);
    for (int64_t i = 0; i < n; ++i) d[i] = v;
    return;
  }
  const size_t size = DTypeSize(dtype);
  auto* d = static_cast<char*>(dst);
  // Doubling copies: log2(n) memcpys instead of n small ones.
  std::memcpy(d, value, size);
  int64_t filled = 1;
  while (filled < n) {
    const int64_t chunk = std::min(filled, n - filled);
    std::memcpy(d + filled * size, d, static_cast<size_t>(chunk) * size);
    filled += chunk;
  }
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

namespace {

// Moves rows [row_begin, row_end) of the dense side; a row is the last
// dimension of `dims`. The strided side is addressed by offset + strides.
// Gathering (kScatter false) reads strided and writes dense; scattering
// the reverse. E is the element's storage type (an unsigned int of the
// element's size, or std::string).
template <typename E, bool kScatter>
void MoveRows(const E* in, int64_t offset, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
              E* out, int64_t row_begin, int64_t row_end) {
  const int outer_rank = static_cast<int>(dims.size()) - 1;
  const int64_t inner = dims.back();
  const int64_t inner_stride = strides.back();
  // Odometer over the outer dims, started at row_begin.
  std::vector<int64_t> idx(outer_rank, 0);
  int64_t at = offset;
  int64_t r = row_begin;
  for (int d = outer_rank - 1; d >= 0; --d) {
    idx[d] = r % dims[d];
    r /= dims[d];
    at += idx[d] * strides[d];
  }
  constexpr bool kPod = !std::is_same_v<E, std::string>;
  for (int64_t row = row_begin; row < row_end; ++row) {
    const int64_t dense = row * inner;
    bool contiguous = false;
    if constexpr (kPod) {
      contiguous = inner_stride == 1;
      const size_t bytes = static_cast<size_t>(inner) * sizeof(E);
      if (contiguous && kScatter) std::memcpy(out + at, in + dense, bytes);
      if (contiguous && !kScatter) std::memcpy(out + dense, in + at, bytes);
    }
    for (int64_t j = 0; j < inner && !contiguous; ++j) {
      if constexpr (kScatter) out[at + j * inner_stride] = in[dense + j];
      else out[dense + j] = in[at + j * inner_stride];
    }
    for (int d = outer_rank - 1; d >= 0; --d) {
      at += strides[d];
      if (++idx[d] < dims[d]) break;
      at -= strides[d] * dims[d];
      idx[d] = 0;
    }
  }
}

template <typename E, bool kScatter>
void StridedMoveT(const OpKernelContext& ctx, const Tensor& in, int64_t offset, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& strides, Tensor& out) {
  const E* src = static_cast<const E*>(in.raw_data());
  E* dst = static_cast<E*>(out.raw_data());
  if (dims.empty()) {
    if constexpr (kScatter) dst[offset] = src[0];
    else dst[0] = src[offset];
    return;
  }
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d) rows *= dims[d];
  ctx.ParallelFor(rows, dims.back() * 2 + 20,
                  [&](int64_t b, int64_t e) { MoveRows<E, kScatter>(src, offset, dims, strides, dst, b, e); });
}

template <bool kScatter>
void StridedMove(const OpKernelContext& ctx, const Tensor& in, int64_t offset, const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& strides, Tensor& out) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  if (in.dtype() == DType::kString) return StridedMoveT<std::string, kScatter>(ctx, in, offset, dims, strides, out);
  switch (DTypeSize(in.dtype())) {
    case 1: return StridedMoveT<uint8_t, kScatter>(ctx, in, offset, dims, strides, out);
    case 2: return StridedMoveT<uint16_t, kScatter>(ctx, in, offset, dims, strides, out);
    case 4: return StridedMoveT<uint32_t, kScatter>(ctx, in, offset, dims, strides, out);
    default: return StridedMoveT<uint64_t, kScatter>(ctx, in, offset, dims, strides, out);
  }
}

}  // namespace

void StridedCopy(const OpKernelContext& ctx, const Tensor& in, int64_t offset, const std::vector<int64_t>& out_dims,
                 const std::vector<int64_t>& in_strides, Tensor& out) {
  StridedMove<false>(ctx, in, offset, out_dims, in_strides, out);
}

void StridedScatter(const OpKernelContext& ctx, const Tensor& in, const std::vector<int64_t>& in_dims,
                    int64_t offset, const std::vector<int64_t>& out_strides, Tensor& out) {
  StridedMove<true>(ctx, in, offset, in_dims, out_strides, out);
}

void ConcatRows(const OpKernelContext& ctx, const std::vector<const Tensor*>& ins, int64_t outer, Tensor& out) {
  if (outer == 0 || out.num_elements() == 0) return;
  const DType dtype = out.dtype();
  std::vector<int64_t> row(ins.size());
  int64_t out_row = 0;
  for (size_t k = 0; k < ins.size(); ++k) {
    row[k] = ins[k]->num_elements() / outer;
    out_row += row[k];
  }
  ctx.ParallelFor(outer, out_row + 20, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t at = o * out_row;
      for (size_t k = 0; k < ins.size(); ++k) {
        CopyElements(dtype, ElementPtr(out, at), ElementPtr(*ins[k], o * row[k]), row[k]);
        at += row[k];
      }
    }
  });
}

void SplitRows(const OpKernelContext& ctx, const Tensor& in, int64_t outer, const std::vector<Tensor*>& outs) {
  if (outer == 0 || in.num_elements() == 0) return;
  const DType dtype = in.dtype();
  std::vector<int64_t> row(outs.size());
  int64_t in_row = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    row[k] = outs[k]->num_elements() / outer;
    in_row += row[k];
  }
  ctx.ParallelFor(outer, in_row + 20, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t at = o * in_row;
      for (size_t k = 0; k < outs.size(); ++k) {
        CopyElements(dtype, ElementPtr(*outs[k], o * row[k]), ElementPtr(in, at), row[k]);
        at += row[k];
      }
    }
  });
}

int64_t DimProduct(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims[i];
  return n;
}

Result<int> NormalizeAxis(std::string_view op, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("{}: axis {} is out of range for a tensor of rank {} (expected {} <= axis < {})", op, axis,
                           rank, -rank, rank);
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Result<Tensor> ScalarOfType(std::string_view op, DType dtype, double v) {
  if (dtype == DType::kString) {
    if (v != 0) return InvalidArgument("{}: a string tensor cannot hold the number {}", op, v);
    return Tensor::Scalar<std::string>("");
  }
  if (dtype == DType::kBool) return Tensor::Scalar<bool>(v != 0);
  Tensor out;
  bool ok = TFG_DISPATCH_NUMBER(dtype, T, { out = Tensor::Scalar<T>(static_cast<T>(v)); });
  if (!ok) return Internal("{}: unsupported dtype {}", op, DTypeName(dtype));
  return out;
}

std::string IntListToString(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

Result<TensorShape> ShapeFromDims(std::string_view op, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("{}: shape {} has a negative dimension", op, IntListToString(dims));
  }
  TensorShape shape(dims);
  if (shape.rank() > checked::kMaxRank) {
    return InvalidArgument("{}: rank {} is above the limit of {} dimensions", op, shape.rank(), checked::kMaxRank);
  }
  TFG_RETURN_IF_ERROR(checked::NumElements(op, dims).status());
  return shape;
}

std::vector<PartialShape> InputShapes(ShapeContext& c) {
  std::vector<PartialShape> shapes;
  for (int i = 0; i < c.num_inputs(); ++i) shapes.push_back(c.input(i));
  return shapes;
}

std::vector<PartialShape> InputShapes(OpKernelContext& ctx, std::vector<const Tensor*>* tensors) {
  std::vector<PartialShape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    shapes.emplace_back(ctx.input(i).shape());
    tensors->push_back(&ctx.input(i));
  }
  return shapes;
}

}  // namespace tfg::array
