// BroadcastPlan: dimension collapsing and the runs it walks.
#include "ops/math/broadcast.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

struct Span {
  int64_t out, a, b, len;
  bool operator==(const Span& o) const { return out == o.out && a == o.a && b == o.b && len == o.len; }
};

std::vector<Span> Runs(const BroadcastPlan& p, int64_t begin, int64_t end) {
  std::vector<Span> runs;
  p.ForEachRun(begin, end, [&](int64_t o, const auto& off, int64_t len) { runs.push_back({o, off[0], off[1], len}); });
  return runs;
}

TEST(BroadcastPlan, SameShapesCollapseToOneRun) {
  TensorShape s{2, 3, 4};
  BroadcastPlan p(s, {&s, &s});
  EXPECT_EQ(p.dims(), std::vector<int64_t>{24});
  EXPECT_EQ(Runs(p, 0, 24), (std::vector<Span>{{0, 0, 0, 24}}));
  EXPECT_EQ(Runs(p, 5, 9), (std::vector<Span>{{5, 5, 5, 4}}));
}

TEST(BroadcastPlan, ScalarHasZeroStride) {
  TensorShape out{2, 3}, scalar{};
  BroadcastPlan p(out, {&out, &scalar});
  EXPECT_EQ(p.dims(), std::vector<int64_t>{6});
  EXPECT_EQ(p.inner_stride(1), 0);
  EXPECT_EQ(Runs(p, 0, 6), (std::vector<Span>{{0, 0, 0, 6}}));
}

TEST(BroadcastPlan, ColumnTimesRow) {
  // [2,1] x [1,3] -> [2,3]: a advances once per row, b once per column.
  TensorShape out{2, 3}, a{2, 1}, b{1, 3};
  BroadcastPlan p(out, {&a, &b});
  EXPECT_EQ(p.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(p.stride(0, 0), 1);
  EXPECT_EQ(p.stride(0, 1), 0);
  EXPECT_EQ(p.stride(1, 0), 0);
  EXPECT_EQ(p.stride(1, 1), 1);
  // A range starting mid-row resumes with the right offsets.
  EXPECT_EQ(Runs(p, 2, 6), (std::vector<Span>{{2, 0, 2, 1}, {3, 1, 0, 3}}));
}

TEST(BroadcastPlan, MergesDimsWithTheSamePattern) {
  // [4,1,3] + [2,1] -> [4,2,3]; size-1 and same-pattern dims merge.
  TensorShape out{4, 2, 3}, a{4, 1, 3}, b{2, 1};
  BroadcastPlan p(out, {&a, &b});
  EXPECT_EQ(p.dims(), (std::vector<int64_t>{4, 2, 3}));
  TensorShape out2{5, 6, 7}, c{5, 6, 1}, d{7};
  BroadcastPlan q(out2, {&c, &d});
  EXPECT_EQ(q.dims(), (std::vector<int64_t>{30, 7}));
  EXPECT_EQ(q.stride(0, 0), 1);
  EXPECT_EQ(q.stride(1, 1), 1);
  EXPECT_EQ(Runs(q, 12, 16), (std::vector<Span>{{12, 1, 5, 2}, {14, 2, 0, 2}}));
}

TEST(BroadcastPlan, AllOnesAndThreeInputs) {
  TensorShape ones{1, 1}, scalar{};
  BroadcastPlan p(ones, {&ones, &scalar});
  EXPECT_EQ(p.dims(), std::vector<int64_t>{1});
  EXPECT_EQ(Runs(p, 0, 1), (std::vector<Span>{{0, 0, 0, 1}}));
  TensorShape out{2, 2}, c{2, 1}, x{2}, y{};
  BroadcastPlan three(out, {&c, &x, &y});
  std::vector<std::array<int64_t, 3>> offs;
  three.ForEachRun(0, 4, [&](int64_t, const auto& off, int64_t) { offs.push_back({off[0], off[1], off[2]}); });
  EXPECT_EQ(offs, (std::vector<std::array<int64_t, 3>>{{0, 0, 0}, {1, 0, 0}}));
}

}  // namespace
}  // namespace tfg
