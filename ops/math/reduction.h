// What reductions (sum, mean, max, min, prod, argmax, argmin) share: the
// `axis` attr, the reduced shape, and the layout the kernels walk. The CPU
// kernels (ops/math/reduction_ops.cc) and the GPU kernels
// (ops/math/reduce_cuda.cc) plan a run through PlanReduction, so both
// accept the same axes and word their errors alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/kernel.h"
#include "ops/core/shape.h"

namespace tfg {

// Which of `shape`'s axes `axis` names: none (or absent) = all; an int or a
// list of ints, negative ones counting from the end. Errors name the op,
// the axis, the rank and the shape.
Result<std::vector<bool>> ReductionAxes(const std::string& op, const AttrValue* axis, const PartialShape& shape);

// The one `axis` of an op along a dimension (softmax, cumsum) as a
// non-negative index into `shape` (of known rank). Errors: `input` (the
// operand's name) is a scalar, or the axis is outside [-rank, rank).
Result<int> SingleAxis(const std::string& op, const char* input, const PartialShape& shape, int64_t axis);

// `dims` without the reduced ones, or with them set to 1 (keepdims).
std::vector<int64_t> ReducedDims(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, bool keepdims);

// Shape function of sum/mean/max/min/prod (attrs `axis`, `keepdims`).
Status ReductionShapeFn(ShapeContext& c);

// How a kernel walks the input. After dropping size-1 dims and merging
// neighbours, the common cases are one reduced block between two kept
// ones: input viewed as [outer, reduce, inner], output [outer, inner]. The
// rest (reduced axes apart, e.g. [R, K, R]) walk `kept`/`red` dims with
// their input strides, in row-major output order.
struct ReductionLayout {
  bool simple = true;
  int64_t outer = 1, reduce = 1, inner = 1;
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  int64_t reduce_count = 1;  // elements combined into each output
};
ReductionLayout MakeReductionLayout(const TensorShape& in, const std::vector<bool>& reduced);
// Offset of the `index`-th (row-major) element of the grid `dims` whose
// steps are `strides`: how the layout's kept and reduced dims are walked.
int64_t GridOffset(int64_t index, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides);

// `axis` (none when absent) and `keepdims` (false when absent) of a
// reduction or of its gradient helper.
struct ReductionAttrs {
  AttrValue axis;
  bool keepdims = false;
};
ReductionAttrs ReadReductionAttrs(const AttrMap& attrs);

// One run of a reduction kernel over a concrete input: the reduced axes,
// the output shape and the layout to walk. Errors as ReductionAxes.
struct ReductionPlan {
  std::vector<bool> reduced;
  TensorShape out;
  ReductionLayout layout;
};
Result<ReductionPlan> PlanReduction(const std::string& op, const ReductionAttrs& attrs, const TensorShape& in);

}  // namespace tfg
