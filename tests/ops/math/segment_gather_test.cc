// segment_gather: the adjoint of unsorted_segment_sum. Values by hand.
#include <gtest/gtest.h>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::segment_gather_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;

TEST(SegmentGatherTest, RowsAndZerosForDroppedIds) {
  const Tensor params = MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  ExpectTensorNear(Eval("segment_gather", {params, MakeTensor<int32_t>({2, -1, 0, 2}, {2, 2})}),
                   {5, 6, 0, 0, 1, 2, 5, 6}, {2, 2, 2});
  ExpectTensorEq<int64_t>(Eval("segment_gather", {MakeTensor<int64_t>({7, 8, 9}, {3}),
                                                  MakeTensor<int64_t>({1, -3}, {2})}),
                          {8, 0}, {2});
  // No rows to read from: every id must be dropped.
  ExpectTensorNear(Eval("segment_gather", {MakeTensor<float>({}, {0, 2}), MakeTensor<int32_t>({-1}, {1})}), {0, 0},
                   {1, 2});
  ExpectTensorNear(Eval("segment_gather", {params, MakeTensor<int32_t>({}, {0})}), {}, {0, 2});
}

TEST(SegmentGatherTest, Errors) {
  const Tensor params = MakeTensor<float>({1, 2, 3}, {3});
  ExpectError(test::RunOp1("segment_gather", {params, MakeTensor<int32_t>({0, 3}, {2})}), Code::kInvalidArgument,
              "segment_gather: segment_ids[1] = 3 is out of range for params of shape [3]");
  ExpectError(test::RunOp1("segment_gather", {MakeTensor<float>({1}, {}), MakeTensor<int32_t>({0}, {1})}),
              Code::kInvalidArgument, "segment_gather: params must have rank >= 1, got a scalar");
}

TEST(SegmentGatherTest, GradientIsUnsortedSegmentSum) {
  EXPECT_GRADIENT_OK("segment_gather", {test::RandomF64({3, 2}), MakeTensor<int32_t>({2, -1, 0, 2}, {4})});
}

}  // namespace
}  // namespace tfg::segment_gather_test
