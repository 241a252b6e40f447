#include "ops/summary/histogram.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

namespace tfg::summary {
namespace {

TEST(HistogramTest, BucketLimitsMirrorAroundZero) {
  const std::vector<double>& limits = DefaultBucketLimits();
  // 1e-12 * 1.1^k < 1e20 for k = 0..773 (774 limits, counted with Python), then DBL_MAX.
  const size_t positive = 775;
  ASSERT_EQ(limits.size(), 2 * positive + 1);
  EXPECT_EQ(limits.front(), -DBL_MAX);
  EXPECT_EQ(limits[positive], 0.0);
  EXPECT_DOUBLE_EQ(limits[positive + 1], 1e-12);
  EXPECT_DOUBLE_EQ(limits[positive + 2], 1.1e-12);
  EXPECT_EQ(limits.back(), DBL_MAX);
  for (size_t i = 1; i < limits.size(); ++i) EXPECT_LT(limits[i - 1], limits[i]);
}

TEST(HistogramTest, StatisticsAndBuckets) {
  std::vector<double> values = {0.5, 1.0, -2.0, 3.0, 1.0};
  pb::HistogramProto h = BuildHistogram(values);
  EXPECT_EQ(h.min(), -2.0);
  EXPECT_EQ(h.max(), 3.0);
  EXPECT_EQ(h.num(), 5.0);
  EXPECT_DOUBLE_EQ(h.sum(), 3.5);
  EXPECT_DOUBLE_EQ(h.sum_squares(), 0.25 + 1 + 4 + 9 + 1);
  ASSERT_EQ(h.bucket_size(), h.bucket_limit_size());
  double total = 0;
  int occupied = 0;
  for (int i = 0; i < h.bucket_size(); ++i) {
    total += h.bucket(i);
    if (h.bucket(i) > 0) ++occupied;
    if (i > 0) {
      EXPECT_LT(h.bucket_limit(i - 1), h.bucket_limit(i));
    }
  }
  EXPECT_EQ(total, 5.0);
  EXPECT_EQ(occupied, 4);  // the two 1.0 share a bucket
  // Each value lies in the bucket [previous limit, limit) of its count;
  // empty runs are merged, so occupied and empty buckets alternate.
  for (int i = 1; i < h.bucket_size(); ++i) EXPECT_FALSE(h.bucket(i - 1) == 0 && h.bucket(i) == 0);
  for (double v : {0.5, 1.0, -2.0, 3.0}) {
    bool found = false;
    for (int i = 1; i < h.bucket_size(); ++i) {
      if (h.bucket(i) > 0 && h.bucket_limit(i - 1) <= v && v < h.bucket_limit(i)) found = true;
    }
    EXPECT_TRUE(found) << v;
  }
}

TEST(HistogramTest, OneValueBucketIsTenPercentWide) {
  pb::HistogramProto h = BuildHistogram({1.0});
  for (int i = 1; i < h.bucket_size(); ++i) {
    if (h.bucket(i) == 0) continue;
    EXPECT_LE(h.bucket_limit(i - 1), 1.0);
    EXPECT_GT(h.bucket_limit(i), 1.0);
    EXPECT_NEAR(h.bucket_limit(i) / h.bucket_limit(i - 1), 1.1, 1e-9);
  }
}

TEST(HistogramTest, EmptyHistogramHasOneEmptyBucket) {
  pb::HistogramProto h = BuildHistogram({});
  EXPECT_EQ(h.num(), 0.0);
  ASSERT_EQ(h.bucket_size(), 1);
  EXPECT_EQ(h.bucket(0), 0.0);
  EXPECT_EQ(h.bucket_limit(0), DBL_MAX);
}

}  // namespace
}  // namespace tfg::summary
