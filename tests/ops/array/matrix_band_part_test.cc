// matrix_band_part. Values recorded from TensorFlow 2.21 (tf.linalg.band_part
// of range(1, 13).reshape(3, 4)).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::matrix_band_part_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

Tensor Bound(int64_t v) { return MakeTensor<int64_t>({v}, {}); }

class BandPart : public ::testing::TestWithParam<DType> {};

TEST_P(BandPart, MatchesTensorFlow) {
  const Tensor m = MakeTensorOf(GetParam(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 4});
  struct Case {
    int64_t lower, upper;
    std::vector<double> want;
  };
  const Case cases[] = {
      {1, -1, {1, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12}},
      {0, 0, {1, 0, 0, 0, 0, 6, 0, 0, 0, 0, 11, 0}},
      {-1, 0, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}},
      {0, 2, {1, 2, 3, 0, 0, 6, 7, 8, 0, 0, 11, 12}},
      {2, 1, {1, 2, 0, 0, 5, 6, 7, 0, 9, 10, 11, 12}},
      {3, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.lower) + ", " + std::to_string(c.upper));
    const Tensor y = Eval("matrix_band_part", {m, Bound(c.lower), Bound(c.upper)});
    EXPECT_EQ(y.dtype(), GetParam());
    ExpectTensorNear(y, c.want, {3, 4}, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BandPart,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// A batch of two 2x2 matrices, i32 bounds, and bools; by hand.
TEST(BandPartTest, BatchesAndOtherDtypes) {
  ExpectTensorNear(Eval("matrix_band_part", {MakeTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}),
                                             MakeTensor<int32_t>({0}, {}), MakeTensor<int32_t>({-1}, {})}),
                   {1, 2, 0, 4, 5, 6, 0, 8}, {2, 2, 2}, 0);
  ExpectTensorEq<bool>(Eval("matrix_band_part", {MakeTensor<bool>({true, true, true, true}, {2, 2}), Bound(-1),
                                                 Bound(0)}),
                       {true, false, true, true}, {2, 2});
  ExpectTensorNear(Eval("matrix_band_part", {MakeTensor<float>({}, {0, 3, 3}), Bound(1), Bound(1)}), {}, {0, 3, 3});
  ExpectTensorNear(Eval("matrix_band_part", {MakeTensor<float>({}, {2, 0}), Bound(0), Bound(0)}), {}, {2, 0});
}

TEST(BandPartTest, Errors) {
  const Tensor m = MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  // TensorFlow: "num_lower must be negative or less or equal to number of rows (3) got: 4".
  ExpectError(test::RunOp1("matrix_band_part", {m, Bound(3), Bound(0)}), Code::kInvalidArgument,
              "matrix_band_part: num_lower must be negative or at most the number of rows (2), got 3");
  ExpectError(test::RunOp1("matrix_band_part", {m, Bound(0), Bound(4)}), Code::kInvalidArgument,
              "matrix_band_part: num_upper must be negative or at most the number of columns (3), got 4");
  ExpectError(test::RunOp1("matrix_band_part", {MakeTensor<float>({1, 2}, {2}), Bound(0), Bound(0)}),
              Code::kInvalidArgument, "matrix_band_part: input must have rank >= 2, got shape [2]");
  ExpectError(test::RunOp1("matrix_band_part", {m, MakeTensor<int64_t>({0, 1}, {2}), Bound(0)}),
              Code::kInvalidArgument, "matrix_band_part: num_lower must be a scalar, got shape [2]");
}

TEST(BandPartTest, Gradient) {
  // The band of dy, by hand: band (0, 1) of ones(2, 3).
  auto g = test::SymbolicGradients("matrix_band_part", {test::RandomF64({2, 3}), Bound(0), Bound(1)}, {},
                                   MakeTensor<double>({1, 1, 1, 1, 1, 1}, {2, 3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {1, 1, 0, 0, 1, 1}, {2, 3}, 0);
  EXPECT_GRADIENT_OK("matrix_band_part", {test::RandomF64({2, 3, 3}), Bound(1), Bound(0)});
}

}  // namespace
}  // namespace tfg::matrix_band_part_test
