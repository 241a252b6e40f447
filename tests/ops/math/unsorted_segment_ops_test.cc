// unsorted_segment_sum, _mean, _max, _min, _prod. Values and gradients
// recorded from TensorFlow 2.21 (tf.math.unsorted_segment_* on the CPU, in
// float64 unless noted; gradients from tf.GradientTape with upstream dy).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::unsorted_segment_ops_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

// Rows to segments 2, dropped (-1), 0, 2 of 4: segments 1 and 3 are empty.
const std::vector<double> kData = {1, 5, 3, 4, 5, 6, 7, 0, 9, -1, 0, 2};
const std::vector<double> kDy = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
constexpr double kLowest = std::numeric_limits<double>::lowest();
constexpr double kMax = std::numeric_limits<double>::max();

struct Recorded {
  const char* op;
  std::vector<double> y;
  std::vector<double> dx;
};

const Recorded kRecorded[] = {
    {"unsorted_segment_sum", {7, 0, 9, 0, 0, 0, 0, 5, 5, 0, 0, 0}, {7, 8, 9, 0, 0, 0, 1, 2, 3, 7, 8, 9}},
    {"unsorted_segment_mean", {7, 0, 9, 0, 0, 0, 0, 2.5, 2.5, 0, 0, 0}, {3.5, 4, 4.5, 0, 0, 0, 1, 2, 3, 3.5, 4, 4.5}},
    {"unsorted_segment_max",
     {7, 0, 9, kLowest, kLowest, kLowest, 1, 5, 3, kLowest, kLowest, kLowest},
     {7, 8, 9, 0, 0, 0, 1, 2, 3, 0, 0, 0}},
    {"unsorted_segment_min",
     {7, 0, 9, kMax, kMax, kMax, -1, 0, 2, kMax, kMax, kMax},
     {0, 0, 0, 0, 0, 0, 1, 2, 3, 7, 8, 9}},
    {"unsorted_segment_prod", {7, 0, 9, 1, 1, 1, -1, 0, 6, 1, 1, 1}, {-7, 0, 18, 0, 0, 0, 1, 2, 3, 7, 40, 27}},
};

const Tensor& Ids() {
  static const Tensor ids = MakeTensor<int32_t>({2, -1, 0, 2}, {4});
  return ids;
}
const Tensor& Four() {
  static const Tensor n = MakeTensor<int64_t>({4}, {});
  return n;
}

TEST(UnsortedSegmentOpsTest, MatchTensorFlowInFloat64) {
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    ExpectTensorNear(Eval(r.op, {MakeTensor<double>(kData, {4, 3}), Ids(), Four()}), r.y, {4, 3}, 0);
  }
}

// The identities of empty segments are the dtype's own extremes, as
// TensorFlow (recorded: int64 max -> INT64_MIN, int32 min -> INT32_MAX,
// float16 max -> -65504).
TEST(UnsortedSegmentOpsTest, EmptySegmentsHoldTheDtypesExtremes) {
  const Tensor ids = MakeTensor<int32_t>({0, 0}, {2});
  const Tensor two = MakeTensor<int32_t>({2}, {});
  ExpectTensorEq<int64_t>(Eval("unsorted_segment_max", {MakeTensor<int64_t>({1, 2}, {2}), ids, two}),
                          {2, std::numeric_limits<int64_t>::min()}, {2});
  ExpectTensorEq<int32_t>(Eval("unsorted_segment_min", {MakeTensor<int32_t>({1, 2}, {2}), ids, two}),
                          {1, std::numeric_limits<int32_t>::max()}, {2});
  ExpectTensorNear(Eval("unsorted_segment_max", {MakeTensorOf(DType::kF16, {1, 2}, {2}), ids, two}), {2, -65504},
                   {2}, 0);
  ExpectTensorNear(Eval("unsorted_segment_max", {MakeTensor<float>({1, 2}, {2}), ids, two}),
                   {2, std::numeric_limits<float>::lowest()}, {2}, 0);
}

class UnsortedSegmentDtypes : public ::testing::TestWithParam<DType> {};

// Sum and mean in every dtype: the same recorded numbers (all exact).
TEST_P(UnsortedSegmentDtypes, SumAndMean) {
  const Tensor data = MakeTensorOf(GetParam(), kData, {4, 3});
  const Tensor ids64 = MakeTensor<int64_t>({2, -1, 0, 2}, {4});
  for (int i : {0, 1}) {
    const Tensor y = Eval(kRecorded[i].op, {data, ids64, MakeTensor<int32_t>({4}, {})});
    EXPECT_EQ(y.dtype(), GetParam());
    // The integer mean of [1, -1] and [5, 0] truncates 2.5 to 2.
    std::vector<double> want = kRecorded[i].y;
    if (i == 1 && (GetParam() == DType::kI32 || GetParam() == DType::kI64)) want[7] = want[8] = 2;
    ExpectTensorNear(y, want, {4, 3});
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, UnsortedSegmentDtypes,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// Matrix ids into rank-3 data (float32 in TensorFlow):
// data = range(12).reshape(2, 3, 2), ids = [[1, 0, 1], [-1, 1, 0]].
TEST(UnsortedSegmentOpsTest, MatrixIds) {
  std::vector<float> data;
  for (int i = 0; i < 12; ++i) data.push_back(static_cast<float>(i));
  const Tensor d = MakeTensor<float>(data, {2, 3, 2});
  const Tensor ids = MakeTensor<int32_t>({1, 0, 1, -1, 1, 0}, {2, 3});
  const Tensor three = MakeTensor<int32_t>({3}, {});
  ExpectTensorNear(Eval("unsorted_segment_sum", {d, ids, three}), {12, 14, 12, 15, 0, 0}, {3, 2}, 0);
  ExpectTensorNear(Eval("unsorted_segment_max", {d, ids, three}),
                   {10, 11, 8, 9, std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest()}, {3, 2},
                   0);
  // One scalar id for the whole of data.
  ExpectTensorNear(Eval("unsorted_segment_sum", {d, MakeTensor<int32_t>({1}, {}), MakeTensor<int32_t>({2}, {})}),
                   [&] {
                     std::vector<double> want(12, 0.0);
                     for (int i = 0; i < 12; ++i) want.push_back(i);
                     return want;
                   }(),
                   {2, 2, 3, 2}, 0);
}

TEST(UnsortedSegmentOpsTest, EmptyAndZeroSegments) {
  const Tensor no_rows = MakeTensor<float>({}, {0, 2});
  const Tensor no_ids = MakeTensor<int32_t>({}, {0});
  ExpectTensorNear(Eval("unsorted_segment_sum", {no_rows, no_ids, MakeTensor<int32_t>({2}, {})}), {0, 0, 0, 0},
                   {2, 2});
  ExpectTensorNear(Eval("unsorted_segment_prod", {no_rows, no_ids, MakeTensor<int32_t>({1}, {})}), {1, 1}, {1, 2});
  ExpectTensorNear(Eval("unsorted_segment_sum", {no_rows, no_ids, MakeTensor<int32_t>({0}, {})}), {}, {0, 2});
  // Every id dropped.
  ExpectTensorNear(Eval("unsorted_segment_mean", {MakeTensor<float>({1, 2}, {2}), MakeTensor<int32_t>({-1, -5}, {2}),
                                                  MakeTensor<int32_t>({1}, {})}),
                   {0}, {1});
}

TEST(UnsortedSegmentOpsTest, ShapeFunction) {
  const std::vector<DType> types = {DType::kF32, DType::kI32, DType::kI32};
  EXPECT_EQ(test::InferShapesString("unsorted_segment_sum", {PartialShape({4, 3, 2}), PartialShape({4, 3}),
                                                             PartialShape({})},
                                    types),
            "[?, 2]");
  const Tensor n = MakeTensor<int32_t>({5}, {});
  auto known = test::InferShapes("unsorted_segment_max", {PartialShape({4, 3}), PartialShape({4}), PartialShape({})},
                                 types, {}, {nullptr, nullptr, &n});
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_EQ((*known)[0].ToString(), "[5, 3]");
  EXPECT_EQ(test::InferShapesString("unsorted_segment_sum", {PartialShape({4, 3}), PartialShape::Unknown(),
                                                             PartialShape({})},
                                    types),
            "<unknown>");
}

TEST(UnsortedSegmentOpsTest, Errors) {
  const Tensor data = MakeTensor<float>({1, 2, 3, 4}, {4});
  const Tensor three = MakeTensor<int32_t>({3}, {});
  // TensorFlow on a CPU: "segment_ids[2] = 5 is out of range [0, 3)".
  ExpectError(test::RunOp1("unsorted_segment_sum", {data, MakeTensor<int32_t>({0, -1, 5, 1}, {4}), three}),
              Code::kInvalidArgument, "unsorted_segment_sum: segment_ids[2] = 5 is out of range [0, 3)");
  ExpectError(test::RunOp1("unsorted_segment_max", {data, MakeTensor<int32_t>({0, 1}, {2}), three}),
              Code::kInvalidArgument,
              "unsorted_segment_max: data's shape [4] does not start with segment_ids' shape [2]");
  ExpectError(test::RunKernel("unsorted_segment_max", {data, MakeTensor<int32_t>({0, 1}, {2}), three}),
              Code::kInvalidArgument, "does not start with segment_ids' shape [2]");
  ExpectError(test::RunOp1("unsorted_segment_min", {data, MakeTensor<int32_t>({0, 0, 0, 0}, {4}),
                                                    MakeTensor<int32_t>({-2}, {})}),
              Code::kInvalidArgument, "unsorted_segment_min: num_segments must be >= 0, got -2");
  ExpectError(test::RunOp1("unsorted_segment_mean", {data, MakeTensor<int32_t>({0, 0, 0, 0}, {4}),
                                                     MakeTensor<int32_t>({2, 2}, {2})}),
              Code::kInvalidArgument, "unsorted_segment_mean: num_segments must be a scalar, got shape [2]");
  // An output too big to count: 2^40 segments of 2^40 elements.
  ExpectError(test::RunKernel("unsorted_segment_sum", {MakeTensor<float>({}, {0, 1099511627776}),
                                                       MakeTensor<int32_t>({}, {0}),
                                                       MakeTensor<int64_t>({1099511627776}, {})}),
              Code::kInvalidArgument, "overflow");
}

TEST(UnsortedSegmentOpsTest, GradientsMatchTensorFlow) {
  const Tensor data = MakeTensor<double>(kData, {4, 3});
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    auto g = test::SymbolicGradients(r.op, {data, Ids(), Four()}, {}, MakeTensor<double>(kDy, {4, 3}));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ExpectTensorNear((*g)[0], r.dx, {4, 3}, 1e-14);
  }
}

TEST(UnsortedSegmentOpsTest, GradientsMatchFiniteDifferences) {
  // No empty segment: the lowest / highest f64 of an empty max / min
  // segment would overflow the finite differences.
  const Tensor data = test::RandomF64({3, 2, 2}, 0.5, 2);
  const Tensor ids = MakeTensor<int64_t>({2, -1, 0, 1, 0, 2}, {3, 2});
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    EXPECT_GRADIENT_OK(r.op, {data, ids, MakeTensor<int32_t>({3}, {})});
  }
}

}  // namespace
}  // namespace tfg::unsorted_segment_ops_test
