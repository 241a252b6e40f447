// segment_sum, segment_mean, segment_max, segment_min, segment_prod (sorted
// ids). Values and gradients recorded from TensorFlow 2.21 (tf.math.segment_*
// in float64; gradients from tf.GradientTape with the upstream gradient dy).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::segment_ops_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

// Four rows in segments 0, 0, 2, 2: segment 1 is a gap. Ties in column 1
// (5, 5 and 0, 0) share the max/min gradient.
const std::vector<double> kData = {1, 5, 3, 4, 5, 6, 7, 0, 9, -1, 0, 2};
const std::vector<double> kDy = {1, 2, 3, 4, 5, 6, 7, 8, 9};

struct Recorded {
  const char* op;
  std::vector<double> y;
  std::vector<double> dx;
};

const Recorded kRecorded[] = {
    {"segment_sum", {5, 10, 9, 0, 0, 0, 6, 0, 11}, {1, 2, 3, 1, 2, 3, 7, 8, 9, 7, 8, 9}},
    {"segment_mean", {2.5, 5, 4.5, 0, 0, 0, 3, 0, 5.5}, {0.5, 1, 1.5, 0.5, 1, 1.5, 3.5, 4, 4.5, 3.5, 4, 4.5}},
    {"segment_max", {4, 5, 6, 0, 0, 0, 7, 0, 9}, {0, 1, 0, 1, 1, 3, 7, 4, 9, 0, 4, 0}},
    {"segment_min", {1, 5, 3, 0, 0, 0, -1, 0, 2}, {1, 1, 3, 0, 1, 0, 0, 4, 0, 7, 4, 9}},
    {"segment_prod", {4, 25, 18, 1, 1, 1, -7, 0, 18}, {4, 10, 18, 1, 10, 9, -7, 0, 18, 49, 0, 81}},
};

class SegmentOps : public ::testing::TestWithParam<DType> {};

TEST_P(SegmentOps, MatchTensorFlow) {
  const Tensor data = MakeTensorOf(GetParam(), kData, {4, 3});
  for (DType id_type : {DType::kI32, DType::kI64}) {
    const Tensor ids = MakeTensorOf(id_type, {0, 0, 2, 2}, {4});
    for (const Recorded& r : kRecorded) {
      SCOPED_TRACE(r.op);
      const Tensor y = Eval(r.op, {data, ids});
      EXPECT_EQ(y.dtype(), GetParam());
      std::vector<double> want = r.y;
      if (std::string(r.op) == "segment_mean" && (GetParam() == DType::kI32 || GetParam() == DType::kI64)) {
        want = {2, 5, 4, 0, 0, 0, 3, 0, 5};  // integer means truncate, as TensorFlow's
      }
      ExpectTensorNear(y, want, {3, 3});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SegmentOps,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// tf.math.segment_mean of int32 [1, 2, 4, -7, 2] by [0, 0, 0, 1, 1]: 7 / 3
// and -5 / 2 truncate.
TEST(SegmentOpsTest, IntegerMeanTruncates) {
  ExpectTensorEq<int32_t>(Eval("segment_mean", {MakeTensor<int32_t>({1, 2, 4, -7, 2}, {5}),
                                                MakeTensor<int32_t>({0, 0, 0, 1, 1}, {5})}),
                          {2, -2}, {2});
}

TEST(SegmentOpsTest, EmptyIdsAndScalarRows) {
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    ExpectTensorNear(Eval(r.op, {MakeTensor<float>({}, {0, 2}), MakeTensor<int32_t>({}, {0})}), {}, {0, 2});
  }
  // Vector data: each row is one number. By hand: [2+3, 4] and a gap.
  ExpectTensorNear(Eval("segment_sum", {MakeTensor<float>({2, 3, 4}, {3}), MakeTensor<int64_t>({0, 0, 2}, {3})}),
                   {5, 0, 4}, {3});
}

TEST(SegmentOpsTest, ShapeFunction) {
  const std::vector<DType> types = {DType::kF32, DType::kI32};
  EXPECT_EQ(test::InferShapesString("segment_sum", {PartialShape({4, 3}), PartialShape({4})}, types), "[?, 3]");
  EXPECT_EQ(test::InferShapesString("segment_max", {PartialShape::Unknown(), PartialShape({4})}, types), "<unknown>");
  const Tensor ids = MakeTensor<int32_t>({0, 1, 1, 4}, {4});
  auto known = test::InferShapes("segment_sum", {PartialShape({4, 3}), PartialShape({4})}, types, {}, {nullptr, &ids});
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_EQ((*known)[0].ToString(), "[5, 3]");
}

TEST(SegmentOpsTest, Errors) {
  const Tensor data = MakeTensor<float>({1, 2, 3, 4}, {4});
  // TensorFlow: "segment ids are not increasing".
  ExpectError(test::RunOp1("segment_sum", {data, MakeTensor<int32_t>({0, 1, 0, 2}, {4})}), Code::kInvalidArgument,
              "segment_sum: segment ids are not increasing: 0 at position 2 follows 1");
  ExpectError(test::RunOp1("segment_max", {data, MakeTensor<int32_t>({-1, 0, 0, 1}, {4})}), Code::kInvalidArgument,
              "segment_max: segment id -1 at position 0 is negative");
  ExpectError(test::RunOp1("segment_mean", {data, MakeTensor<int32_t>({0, 1}, {2})}), Code::kInvalidArgument,
              "segment_mean: segment_ids has 2 entries but data has 4 rows");
  ExpectError(test::RunKernel("segment_mean", {data, MakeTensor<int32_t>({0, 1}, {2})}), Code::kInvalidArgument,
              "segment_ids has 2 entries but data has 4 rows");
  ExpectError(test::RunOp1("segment_min", {data, MakeTensor<int32_t>({0, 0, 1, 1}, {2, 2})}),
              Code::kInvalidArgument, "segment_min: segment_ids must be a vector, got shape [2, 2]");
  ExpectError(test::RunOp1("segment_prod", {MakeTensor<float>({1}, {}), MakeTensor<int32_t>({0}, {1})}),
              Code::kInvalidArgument, "segment_prod: data must have rank >= 1, got a scalar");
  ExpectError(test::RunOp1("segment_sum", {MakeTensor<bool>({true}, {1}), MakeTensor<int32_t>({0}, {1})}),
              Code::kInvalidArgument, "bool");
}

TEST(SegmentOpsTest, GradientsMatchTensorFlow) {
  const Tensor data = MakeTensor<double>(kData, {4, 3});
  const Tensor ids = MakeTensor<int32_t>({0, 0, 2, 2}, {4});
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    auto g = test::SymbolicGradients(r.op, {data, ids}, {}, MakeTensor<double>(kDy, {3, 3}));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ExpectTensorNear((*g)[0], r.dx, {4, 3}, 1e-14);
  }
  // tf.math.segment_prod of [[0, 2], [3, 0], [0, 5]] in one segment: column 0
  // has two zeros (all 0), column 1 one zero (its gradient is 2 * 5).
  auto g = test::SymbolicGradients("segment_prod", {MakeTensor<double>({0, 2, 3, 0, 0, 5}, {3, 2}),
                                                    MakeTensor<int32_t>({0, 0, 0}, {3})},
                                   {}, MakeTensor<double>({1, 1}, {1, 2}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {0, 0, 0, 10, 0, 0}, {3, 2}, 1e-14);
}

TEST(SegmentOpsTest, GradientsMatchFiniteDifferences) {
  // Distinct values (no ties for max/min), no zeros (prod), a gap (segment 1).
  const Tensor data = test::RandomF64({5, 2}, 0.5, 2);
  const Tensor ids = MakeTensor<int64_t>({0, 0, 2, 2, 2}, {5});
  for (const Recorded& r : kRecorded) {
    SCOPED_TRACE(r.op);
    EXPECT_GRADIENT_OK(r.op, {data, ids});
  }
}

}  // namespace
}  // namespace tfg::segment_ops_test
