#include "ops/math/segment_reduce.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"

namespace tfg::math::segment {
namespace {

// f16 accumulates in f32, each output rounded once.
template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<half> { using type = float; };

template <typename T>
typename AccOf<T>::type Identity(Reduction r) {
  using A = typename AccOf<T>::type;
  switch (r) {
    case Reduction::kProd: return A(1);
    case Reduction::kMax: return static_cast<A>(std::numeric_limits<T>::lowest());
    case Reduction::kMin: return static_cast<A>(std::numeric_limits<T>::max());
    default: return A(0);
  }
}

template <typename A>
A Combine(Reduction r, A acc, A v) {
  switch (r) {
    case Reduction::kProd: return functor::WrapMul(acc, v);
    case Reduction::kMax: return functor::Maximum{}(acc, v);  // NaN propagates
    case Reduction::kMin: return functor::Minimum{}(acc, v);
    default: return functor::WrapAdd(acc, v);
  }
}

template <typename T>
void Reduce(const OpKernelContext& ctx, Reduction r, EmptySegments empty, const T* data,
            const std::vector<int64_t>& ids, int64_t num_segments, int64_t inner, T* out) {
  using A = typename AccOf<T>::type;
  std::vector<A> acc(static_cast<size_t>(num_segments * inner), Identity<T>(r));
  std::vector<int64_t> count(static_cast<size_t>(num_segments), 0);
  for (int64_t id : ids) {
    if (id >= 0) ++count[id];
  }
  const int64_t n = static_cast<int64_t>(ids.size());
  // Threads own disjoint column ranges, so rows of one segment never race.
  ctx.ParallelFor(inner, n + 1, [&](int64_t s, int64_t e) {
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] < 0) continue;
      A* dst = acc.data() + ids[i] * inner;
      const T* src = data + i * inner;
      for (int64_t k = s; k < e; ++k) dst[k] = Combine(r, dst[k], static_cast<A>(src[k]));
    }
  });
  for (int64_t seg = 0; seg < num_segments; ++seg) {
    A* row = acc.data() + seg * inner;
    const int64_t c = count[seg];
    if (c == 0 && empty == EmptySegments::kZero) {
      std::fill(row, row + inner, r == Reduction::kProd ? A(1) : A(0));
    } else if (c > 0 && r == Reduction::kMean) {
      for (int64_t k = 0; k < inner; ++k) row[k] = row[k] / static_cast<A>(c);
    }
    for (int64_t k = 0; k < inner; ++k) out[seg * inner + k] = static_cast<T>(row[k]);
  }
}

}  // namespace

std::vector<int64_t> ReadIds(const Tensor& ids) {
  std::vector<int64_t> out(static_cast<size_t>(ids.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = ids.dtype() == DType::kI32 ? static_cast<int64_t>(ids.data<int32_t>()[i]) : ids.data<int64_t>()[i];
  }
  return out;
}

Result<int64_t> CheckSortedIds(std::string_view op, const std::vector<int64_t>& ids) {
  if (ids.empty()) return int64_t{0};
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) {
      return InvalidArgument("{}: segment id {} at position {} is negative; segment ids must be sorted and >= 0",
                             op, ids[i], i);
    }
    if (i > 0 && ids[i] < ids[i - 1]) {
      return InvalidArgument("{}: segment ids are not increasing: {} at position {} follows {}", op, ids[i], i,
                             ids[i - 1]);
    }
  }
  // The ids are sorted and >= 0 here; the output has ids.back() + 1 rows.
  return checked::AddSize(op, "number of segments", ids.back(), 1);
}

Status CheckUnsortedIds(std::string_view op, const std::vector<int64_t>& ids, int64_t num_segments) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] >= num_segments) {
      return InvalidArgument("{}: segment_ids[{}] = {} is out of range [0, {})", op, i, ids[i], num_segments);
    }
  }
  return Status::OK();
}

Status ReduceSegments(const OpKernelContext& ctx, Reduction reduction, EmptySegments empty, const Tensor& data,
                      const std::vector<int64_t>& ids, int64_t num_segments, int64_t inner, Tensor* out) {
  if (out->num_elements() == 0) return Status::OK();
  bool ok = TFG_DISPATCH_NUMBER(data.dtype(), T, {
    Reduce<T>(ctx, reduction, empty, data.data<T>(), ids, num_segments, inner, out->data<T>());
  });
  if (!ok) {
    return Unimplemented("{}: no CPU kernel for dtype {}", ctx.info().op ? ctx.info().op->name : ctx.info().node_name,
                         DTypeName(data.dtype()));
  }
  return Status::OK();
}

std::vector<int64_t> SegmentedDims(int64_t segments, const std::vector<int64_t>& data, int first) {
  std::vector<int64_t> dims{segments};
  dims.insert(dims.end(), data.begin() + first, data.end());
  return dims;
}

Status ReduceIntoOutput(OpKernelContext& ctx, Reduction reduction, EmptySegments empty, const Tensor& data,
                        const std::vector<int64_t>& ids, int ids_rank, int64_t segments) {
  const std::string& op = ctx.info().op->name;
  const std::vector<int64_t> dims = SegmentedDims(segments, data.shape().dims(), ids_rank);
  TFG_RETURN_IF_ERROR(checked::NumElements(op, dims).status());
  int64_t inner = 1;  // the width of one row reduced
  for (int d = ids_rank; d < data.rank(); ++d) inner *= data.dim(d);
  TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
  return ReduceSegments(ctx, reduction, empty, data, ids, segments, inner, out);
}

OpDefBuilder SegmentOpDef(const char* name, bool with_num_segments, ShapeFn shape_fn, GradFn grad, const char* doc,
                          const char* rule) {
  OpDefBuilder b(name);
  b.Input("data", "T").Input("segment_ids", "Tindices");
  if (with_num_segments) b.Input("num_segments", "Tnumsegments");
  b.Output("output", "T").TypeAttr("T", NumberTypes()).TypeAttr("Tindices", {DType::kI32, DType::kI64});
  if (with_num_segments) b.TypeAttr("Tnumsegments", {DType::kI32, DType::kI64});
  b.SetShapeFn(std::move(shape_fn)).SetGradFn(std::move(grad)).Doc(std::string(doc) + rule);
  return b;
}

}  // namespace tfg::math::segment
