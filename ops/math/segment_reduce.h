// The kernel core the segment reductions share (ops/math/segment_ops.cc:
// segment_sum ... with sorted ids; unsorted_segment_ops.cc: unsorted_segment_sum
// ... with num_segments): the rows of `data` (viewed [n, inner]) reduced into
// `num_segments` rows by their segment id, and the reading and checking of
// those ids, worded as TensorFlow words its errors; and the declaration and
// kernel registration both families share. Defined in segment_reduce.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::math::segment {

enum class Reduction { kSum, kMean, kMax, kMin, kProd };

// What a segment no row reaches holds.
enum class EmptySegments {
  kIdentity,  // the reduction's identity: 0, 1, lowest, highest (unsorted_segment_*)
  kZero,      // 0, except 1 for a product (segment_*, as TensorFlow)
};

// The ids (i32 or i64) as int64.
std::vector<int64_t> ReadIds(const Tensor& ids);

// Sorted ids (segment_*): non-decreasing and >= 0. Returns the number of
// segments, ids.back() + 1 (0 for no ids).
Result<int64_t> CheckSortedIds(std::string_view op, const std::vector<int64_t>& ids);

// Unsorted ids: each < num_segments; negative ids are dropped, as TensorFlow.
Status CheckUnsortedIds(std::string_view op, const std::vector<int64_t>& ids, int64_t num_segments);

// out ([num_segments, inner], allocated by the caller, data's dtype) from
// data's rows reduced by `ids` (one per row; negative: dropped). Mean
// divides by the number of rows of the segment (integer division for
// integers).
Status ReduceSegments(const OpKernelContext& ctx, Reduction reduction, EmptySegments empty, const Tensor& data,
                      const std::vector<int64_t>& ids, int64_t num_segments, int64_t inner, Tensor* out);

// [segments] + data's dims from `first` on: the output's dims.
std::vector<int64_t> SegmentedDims(int64_t segments, const std::vector<int64_t>& data, int first);

// Output 0, [segments] + data's dims past the ids' `ids_rank` (checked for
// size), reduced from data's rows by `ids`.
Status ReduceIntoOutput(OpKernelContext& ctx, Reduction reduction, EmptySegments empty, const Tensor& data,
                        const std::vector<int64_t>& ids, int ids_rank, int64_t segments);

// The declaration of segment_* (with_num_segments false) or
// unsorted_segment_* (true): data, segment_ids[, num_segments] -> output;
// `doc` is followed by `rule`, the family's sentence on ids and shapes.
OpDefBuilder SegmentOpDef(const char* name, bool with_num_segments, ShapeFn shape_fn, GradFn grad, const char* doc,
                          const char* rule);

// The CPU kernel of a segment reduction: a `Kernel` built with the reduction
// it does (there are no attrs for Init to read).
template <typename Kernel>
KernelDef SegmentKernelDef(const char* name, Reduction reduction) {
  return KernelDef(name, DeviceType::kCpu)
      .Factory([reduction](const KernelConstruction&) -> Result<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(new Kernel(reduction));
      });
}

}  // namespace tfg::math::segment
