// gather's and gather_grad's operand checks: GatherLayoutOf is defined in
// ops/array/gather.cc, GatherGradLayoutOf in ops/array/gather_grad.cc.
// Their CPU kernels and their GPU kernels (ops/array/gather_cuda.cc) plan
// each run through them, so both accept the same operands and word their
// errors alike. Index values are the CPU kernels' own check (the GPU's are
// in device memory).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg::array {

// params[:axis] + indices + params[axis+1:]: the shape gather gives.
std::vector<int64_t> GatheredDims(const std::vector<int64_t>& params, const std::vector<int64_t>& indices, int axis);

// Params viewed as [outer, limit, inner] around `axis`, and the gathered
// shape.
struct GatherLayout {
  int axis = 0;
  int64_t outer = 1, limit = 0, inner = 1;
  TensorShape gathered;
};
// gather: params of rank >= 1 and an axis in [-rank, rank).
Result<GatherLayout> GatherLayoutOf(const TensorShape& params, const TensorShape& indices, int64_t axis);
// gather_grad: the same (worded as gather_grad words them), and `values`
// of the gathered shape.
Result<GatherLayout> GatherGradLayoutOf(const TensorShape& values, const TensorShape& indices,
                                        const TensorShape& params, int64_t axis);

// The layout of `params` around the already normalized `axis`.
GatherLayout MakeGatherLayout(const TensorShape& params, const TensorShape& indices, int axis);

}  // namespace tfg::array
