// What gather_nd (ops/array/gather_nd.cc) and scatter_nd
// (ops/array/scatter_nd.cc) share: indices of shape [..., d] address slices
// of a tensor of shape `dims`, each index tuple picking dims[d:] at
// dims[:d]. Both ops read and check their index tuples here, so they word
// out-of-range errors alike. Defined in ops/array/gather_nd.cc.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::array {

// The slice number of every index tuple of `indices` (i32 or i64, rank >= 1,
// last dimension d <= dims.size()): the row-major offset of the tuple in
// dims[:d], so the tuple's slice starts at element offset * product(dims[d:]).
// An entry outside [0, dims[k]) is an InvalidArgument:
//   "<op>: index tuple [5, 0] at position [1] of indices is out of range for
//    <target>: entry 0 is 5, not in [0, 3)"
// (`target` e.g. "params f32[3, 2]"; the position indexes indices.shape[:-1]).
Result<std::vector<int64_t>> NdSliceNumbers(std::string_view op, const Tensor& indices,
                                            const std::vector<int64_t>& dims, std::string_view target);

// indices.shape[:-1] + dims[depth:]: the shape of what tuples of depth
// `depth` select from `dims` (gather_nd's output, scatter_nd's updates).
std::vector<int64_t> NdSlicesDims(const std::vector<int64_t>& indices, const std::vector<int64_t>& dims,
                                  int64_t depth);

}  // namespace tfg::array
