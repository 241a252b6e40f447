#include "ops/array/strided_slice_plan.h"

#include <algorithm>
#include <bit>

#include "ops/array/array_util.h"

namespace tfg::array {
namespace {

constexpr int64_t kNewAxis = -1;
constexpr int64_t kShrinkAxis = -2;

// The spec re-expressed over the input's dims, with the recipe for the
// output shape: per output dim, the input dim it comes from, or kNewAxis;
// kShrinkAxis entries are dropped.
struct DenseSpec {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0;
  std::vector<int64_t> final_gather;
};

bool Bit(int64_t mask, size_t i) { return (mask >> i) & 1; }

Result<DenseSpec> ToDense(StridedSliceSpec sparse, int dense_dims) {
  size_t n = sparse.begin.size();
  const int64_t items = (int64_t{1} << n) - 1;
  if (std::popcount(static_cast<uint64_t>(sparse.ellipsis_mask & items)) > 1) {
    return InvalidArgument("strided_slice: at most one ellipsis (...) is allowed in an index");
  }
  if ((sparse.ellipsis_mask & items) == 0) {
    // No ellipsis: an implicit one after the last item keeps the rest whole.
    sparse.ellipsis_mask = int64_t{1} << n;
    sparse.begin.push_back(0);
    sparse.end.push_back(0);
    sparse.strides.push_back(1);
    ++n;
  }
  DenseSpec d;
  d.begin.assign(dense_dims, 0), d.end.assign(dense_dims, 0), d.strides.assign(dense_dims, 1);
  int full = 0;
  for (size_t i = 0; i < n; ++i) {
    if (Bit(sparse.ellipsis_mask, i)) {
      int new_axes_after = 0;
      for (size_t j = i + 1; j < n; ++j) new_axes_after += Bit(sparse.new_axis_mask, j);
      const int next = std::min<int>(dense_dims - static_cast<int>(n - i) + 1 + new_axes_after, dense_dims);
      for (; full < next; ++full) {
        d.begin_mask |= int64_t{1} << full;
        d.end_mask |= int64_t{1} << full;
        d.final_gather.push_back(full);
      }
    } else if (Bit(sparse.new_axis_mask, i)) {
      d.final_gather.push_back(kNewAxis);
    } else {
      if (full >= dense_dims) {
        return InvalidArgument("strided_slice: the index has more items than the input has dimensions ({})",
                               dense_dims);
      }
      d.begin[full] = sparse.begin[i], d.end[full] = sparse.end[i], d.strides[full] = sparse.strides[i];
      if (Bit(sparse.begin_mask, i)) d.begin_mask |= int64_t{1} << full;
      if (Bit(sparse.end_mask, i)) d.end_mask |= int64_t{1} << full;
      const bool shrink = Bit(sparse.shrink_axis_mask, i);
      if (shrink) d.shrink_mask |= int64_t{1} << full;
      d.final_gather.push_back(shrink ? kShrinkAxis : full);
      ++full;
    }
  }
  return d;
}

// Clamps an index for one end of the range: masked ends take the whole
// range in the stride's direction; negative indices count from the end.
int64_t Canonical(int64_t x, int which, bool masked, int64_t stride, int64_t dim) {
  const int64_t lo = stride > 0 ? 0 : -1;
  const int64_t hi = stride > 0 ? dim : dim - 1;
  if (masked) return (stride > 0) == (which == 0) ? lo : hi;
  const int64_t fwd = x < 0 ? dim + x : x;
  return std::clamp(fwd, lo, hi);
}

// Start and extent along one input dim (extent -1 when dim is unknown).
Status PlanDim(const DenseSpec& d, int i, int64_t dim, StridedSlicePlan& plan) {
  const int64_t stride = d.strides[i];
  if (stride == 0) return InvalidArgument("strided_slice: strides[{}] must be non-zero", i);
  const bool shrink = Bit(d.shrink_mask, i);
  if (shrink && stride < 0) {
    return InvalidArgument("strided_slice: a plain index (dimension {}) needs stride 1, got {}", i, stride);
  }
  plan.strides[i] = stride;
  if (dim < 0) {
    plan.extents[i] = shrink ? 1 : PartialShape::kUnknown;
    return Status::OK();
  }
  int64_t begin, end;
  if (shrink) {
    begin = d.begin[i] < 0 ? dim + d.begin[i] : d.begin[i];
    if (begin < 0 || begin >= dim) {
      return InvalidArgument("strided_slice: index {} is out of range for dimension {} of size {}", d.begin[i], i,
                             dim);
    }
    end = begin + 1;
  } else {
    begin = Canonical(d.begin[i], 0, Bit(d.begin_mask, i), stride, dim);
    end = Canonical(d.end[i], 1, Bit(d.end_mask, i), stride, dim);
  }
  const int64_t interval = end - begin;
  int64_t extent = 0;
  if (interval != 0 && (interval < 0) == (stride < 0)) extent = interval / stride + (interval % stride != 0 ? 1 : 0);
  plan.begin[i] = begin;
  plan.extents[i] = extent;
  return Status::OK();
}

}  // namespace

Result<StridedSlicePlan> PlanStridedSlice(const StridedSliceSpec& spec, const std::vector<int64_t>& in_dims) {
  const size_t n = spec.begin.size();
  if (spec.end.size() != n || spec.strides.size() != n) {
    return InvalidArgument("strided_slice: begin {}, end {} and strides {} must have the same length",
                           IntListToString(spec.begin), IntListToString(spec.end), IntListToString(spec.strides));
  }
  if (n >= 63) return InvalidArgument("strided_slice: an index may have at most 62 items, got {}", n);
  const int rank = static_cast<int>(in_dims.size());
  TFG_ASSIGN_OR_RETURN(DenseSpec d, ToDense(spec, rank));
  StridedSlicePlan plan;
  plan.begin.assign(rank, 0), plan.strides.assign(rank, 1), plan.extents.assign(rank, 0);
  for (int i = 0; i < rank; ++i) TFG_RETURN_IF_ERROR(PlanDim(d, i, in_dims[i], plan));
  for (int64_t g : d.final_gather) {
    if (g == kNewAxis) plan.output_dims.push_back(1);
    else if (g != kShrinkAxis) plan.output_dims.push_back(plan.extents[g]);
  }
  return plan;
}

Result<StridedSliceSpec> ReadStridedSliceSpec(const AttrMap& attrs, std::string_view kOp) {
  using IntList = std::vector<int64_t>;
  StridedSliceSpec s;
  TFG_ASSIGN_OR_RETURN(s.begin, RequiredAttr<IntList>(attrs, kOp, "begin"));
  TFG_ASSIGN_OR_RETURN(s.end, RequiredAttr<IntList>(attrs, kOp, "end"));
  if (const auto* st = FindAttr<IntList>(attrs, "strides"); st && !st->empty()) {
    s.strides = *st;
  } else {
    s.strides.assign(s.begin.size(), 1);
  }
  TFG_ASSIGN_OR_RETURN(s.begin_mask, RequiredAttr<int64_t>(attrs, kOp, "begin_mask"));
  TFG_ASSIGN_OR_RETURN(s.end_mask, RequiredAttr<int64_t>(attrs, kOp, "end_mask"));
  TFG_ASSIGN_OR_RETURN(s.shrink_axis_mask, RequiredAttr<int64_t>(attrs, kOp, "shrink_axis_mask"));
  TFG_ASSIGN_OR_RETURN(s.new_axis_mask, RequiredAttr<int64_t>(attrs, kOp, "new_axis_mask"));
  TFG_ASSIGN_OR_RETURN(s.ellipsis_mask, RequiredAttr<int64_t>(attrs, kOp, "ellipsis_mask"));
  return s;
}


namespace {
constexpr const char* kSpecAttrs[] = {"begin",    "end",      "strides",       "begin_mask",
                                      "end_mask", "shrink_axis_mask", "new_axis_mask", "ellipsis_mask"};
}  // namespace

AttrMap StridedSliceAttrs(const AttrMap& attrs) {
  AttrMap out;
  for (const char* name : kSpecAttrs) {
    auto it = attrs.find(name);
    if (it != attrs.end()) out.emplace(name, it->second);
  }
  return out;
}

OpDefBuilder& AddStridedSliceAttrs(OpDefBuilder& b) {
  return b.Attr("begin", AttrType::kIntList, std::nullopt, "start per index item")
      .Attr("end", AttrType::kIntList, std::nullopt, "stop (exclusive) per index item")
      .Attr("strides", AttrType::kIntList, std::vector<int64_t>{}, "step per index item; empty = all 1")
      .Attr("begin_mask", AttrType::kInt, int64_t{0}, "bit i: item i's start is omitted")
      .Attr("end_mask", AttrType::kInt, int64_t{0}, "bit i: item i's stop is omitted")
      .Attr("shrink_axis_mask", AttrType::kInt, int64_t{0}, "bit i: item i is a plain index")
      .Attr("new_axis_mask", AttrType::kInt, int64_t{0}, "bit i: item i is None (new axis)")
      .Attr("ellipsis_mask", AttrType::kInt, int64_t{0}, "bit i: item i is ...");
}

int64_t SliceOffsetAndSteps(const StridedSlicePlan& plan, const std::vector<int64_t>& dims,
                            std::vector<int64_t>& steps) {
  steps = RowMajorStrides(dims);
  int64_t offset = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    // begin < dims[i] when anything is taken, so begin * stride stays inside
    // the tensor; (extent - 1) * step likewise for a dim that moves.
    if (plan.extents[i] > 0) offset += plan.begin[i] * steps[i];
    steps[i] = plan.extents[i] > 1 ? steps[i] * plan.strides[i] : 0;
  }
  return offset;
}

}  // namespace tfg::array
