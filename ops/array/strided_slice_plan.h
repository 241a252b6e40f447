// TensorFlow's strided-slice index semantics, shared by the kernel and the
// shape function: turns (begin, end, strides, masks) given for the index
// expression's items into a plan over the input's dimensions.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/op_registry.h"
#include "ops/core/status.h"

namespace tfg::array {

// One entry per item of the index expression (`t[1:, ..., None, 0]` has
// four). Bit i of a mask refers to item i:
//   begin_mask/end_mask: start/stop omitted (full range in that direction);
//   shrink_axis_mask: a plain index (begin=i, end=i+1): the dim is dropped;
//   new_axis_mask: `None`: a new dim of size 1;
//   ellipsis_mask: `...`: as many full-range dims as needed (at most one).
// With no ellipsis, dims past the last item are taken whole.
struct StridedSliceSpec {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, shrink_axis_mask = 0, new_axis_mask = 0, ellipsis_mask = 0;
};

// Per input dimension: where the slice starts, its step and how many
// elements it takes (-1 when unknown at build time); and the output shape.
struct StridedSlicePlan {
  std::vector<int64_t> begin;
  std::vector<int64_t> strides;
  std::vector<int64_t> extents;
  std::vector<int64_t> output_dims;
};

// `in_dims` may hold -1 for unknown dims (shape functions); kernels pass
// concrete dims. Errors: mismatched list lengths, zero stride, several
// ellipses, more indexed dims than the input has, and an index out of
// range for a shrunk dim (naming the index and the dim size).
Result<StridedSlicePlan> PlanStridedSlice(const StridedSliceSpec& spec, const std::vector<int64_t>& in_dims);

// For StridedCopy/StridedScatter over a tensor of `dims` (row-major): sets
// `steps` to each dimension's element step and returns the offset of the
// first element. A dimension the slice takes at most one element of gets
// step 0, since its stride is never taken: a huge stride there must not
// overflow the product.
int64_t SliceOffsetAndSteps(const StridedSlicePlan& plan, const std::vector<int64_t>& dims,
                            std::vector<int64_t>& steps);

// The spec from a node's attrs (strides empty or absent: all 1).
Result<StridedSliceSpec> ReadStridedSliceSpec(const AttrMap& attrs, std::string_view op);
// Just the spec's attrs, copied from a node (for its gradient node).
AttrMap StridedSliceAttrs(const AttrMap& attrs);
// Declares begin, end, strides and the five masks on an op, in the order
// scripts pass them.
OpDefBuilder& AddStridedSliceAttrs(OpDefBuilder& b);

}  // namespace tfg::array
