#include "ops/summary/histogram.h"

#include <algorithm>
#include <cfloat>

namespace tfg::summary {
namespace {

std::vector<double> MakeBucketLimits() {
  std::vector<double> positive;
  for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
  positive.push_back(DBL_MAX);
  std::vector<double> limits;
  limits.reserve(2 * positive.size() + 1);
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  return limits;
}

// Writes the counts, merging each run of empty buckets into one bucket that
// ends where the run ends (TensorBoard needs only the occupied ranges).
void AppendBuckets(const std::vector<double>& limits, const std::vector<double>& counts, pb::HistogramProto& h) {
  for (size_t i = 0; i < counts.size();) {
    double limit = limits[i];
    double count = counts[i];
    ++i;
    if (count <= 0) {
      while (i < counts.size() && counts[i] <= 0) limit = limits[i++];
    }
    h.add_bucket_limit(limit);
    h.add_bucket(count);
  }
}

}  // namespace

const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double> limits = MakeBucketLimits();
  return limits;
}

pb::HistogramProto BuildHistogram(const std::vector<double>& values) {
  const std::vector<double>& limits = DefaultBucketLimits();
  std::vector<double> counts(limits.size(), 0.0);
  pb::HistogramProto h;
  double lo = DBL_MAX, hi = -DBL_MAX, sum = 0, sum_squares = 0;
  for (double v : values) {
    size_t b = static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), v) - limits.begin());
    counts[std::min(b, limits.size() - 1)] += 1;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
    sum_squares += v * v;
  }
  h.set_min(values.empty() ? 0.0 : lo);
  h.set_max(values.empty() ? 0.0 : hi);
  h.set_num(static_cast<double>(values.size()));
  h.set_sum(sum);
  h.set_sum_squares(sum_squares);
  AppendBuckets(limits, counts, h);
  return h;
}

}  // namespace tfg::summary
