// The gradients of the segment reductions (ops/math/segment_ops.cc and
// unsorted_segment_ops.cc), as TensorFlow's, written with registry ops so
// they differentiate again. One set serves both families: a node with a
// third input (num_segments) is unsorted. Rows of dropped (negative) ids
// get zeros through segment_gather (ops/math/segment_gather.cc).
#pragma once

#include "ops/autodiff/gradients.h"

namespace tfg::math::segment {

// d data = segment_gather(dy, ids).
Status SegmentSumGrad(GradContext& g);
// d data = segment_gather(dy / count, ids), count the rows of each segment.
Status SegmentMeanGrad(GradContext& g);
// The rows equal to their segment's max (min) share dy equally; the others
// get 0 (TensorFlow's _SegmentMinOrMaxGrad).
Status SegmentMinMaxGrad(GradContext& g);
// y / x for each x, or the product of the segment's other elements where x
// is its only zero; 0 where the segment has two zeros (TensorFlow's
// _UnsortedSegmentProdGrad).
Status SegmentProdGrad(GradContext& g);

}  // namespace tfg::math::segment
