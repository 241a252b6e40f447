// The histogram of a histogram_summary, bucketed as TensorFlow buckets it so
// TensorBoard draws it the same: limits grow by 10% from ±1e-12 to ±1e20
// (and ±DBL_MAX, 0 between the signs); bucket i counts values in
// [limit[i-1], limit[i]). Runs of empty buckets are merged into one.
#pragma once

#include <vector>

#include "proto/summary.pb.h"

namespace tfg::summary {

// The bucket limits, ascending, the last DBL_MAX.
const std::vector<double>& DefaultBucketLimits();

// The histogram of `values` (finite, checked by the caller).
pb::HistogramProto BuildHistogram(const std::vector<double>& values);

}  // namespace tfg::summary
