// cumsum and cumprod. Expected values computed with NumPy (np.cumsum /
// np.cumprod; exclusive as the inclusive scan shifted by one, reverse as
// the scan of np.flip(x, axis) flipped back) or by hand where noted.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

AttrMap Scan(int64_t axis, bool exclusive = false, bool reverse = false) {
  return {{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
}

class ScanOps : public ::testing::TestWithParam<DType> {};

// x = [[1, 2, 3], [4, 5, 6]], by hand.
TEST_P(ScanOps, ExclusiveAndReverseCombinations) {
  const Tensor x = MakeTensorOf(GetParam(), {1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}), {1, 2, 3, 5, 7, 9}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(1)), {1, 3, 6, 4, 9, 15}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(-1, true)), {0, 1, 3, 0, 4, 9}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(1, false, true)), {6, 5, 3, 15, 11, 6}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(1, true, true)), {5, 3, 0, 11, 6, 0}, {2, 3});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(-2, true, true)), {4, 5, 6, 0, 0, 0}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}), {1, 2, 3, 4, 10, 18}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}, Scan(1)), {1, 2, 6, 4, 20, 120}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}, Scan(1, true)), {1, 1, 2, 1, 4, 20}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}, Scan(-1, false, true)), {6, 6, 3, 120, 30, 6}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}, Scan(1, true, true)), {6, 3, 1, 30, 6, 1}, {2, 3});
  ExpectTensorNear(Eval("cumprod", {x}, Scan(0, true)), {1, 1, 1, 1, 2, 3}, {2, 3});
  EXPECT_EQ(Eval("cumsum", {x}).dtype(), GetParam());
}

// x = np.arange(24).reshape(2, 3, 4) - 5: a middle axis has dims on both sides.
TEST_P(ScanOps, ThreeDimensions) {
  std::vector<double> v;
  for (int i = 0; i < 24; ++i) v.push_back(i - 5);
  const Tensor x = MakeTensorOf(GetParam(), v, {2, 3, 4});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(1)),
                   {-5, -4, -3, -2, -6, -4, -2, 0, -3, 0, 3, 6, 7, 8, 9, 10, 18, 20, 22, 24, 33, 36, 39, 42}, {2, 3, 4});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(1, true, true)),
                   {2, 4, 6, 8, 3, 4, 5, 6, 0, 0, 0, 0, 26, 28, 30, 32, 15, 16, 17, 18, 0, 0, 0, 0}, {2, 3, 4});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(-1, true)),
                   {0, -5, -9, -12, 0, -1, -1, 0, 0, 3, 7, 12, 0, 7, 15, 24, 0, 11, 23, 36, 0, 15, 31, 48}, {2, 3, 4});
  ExpectTensorNear(Eval("cumsum", {x}, Scan(0, false, true)),
                   {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}, {2, 3, 4});
  // y = np.arange(12).reshape(3, 4) % 5 + 1
  const Tensor y = MakeTensorOf(GetParam(), {1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2}, {3, 4});
  ExpectTensorNear(Eval("cumprod", {y}), {1, 2, 3, 4, 5, 2, 6, 12, 20, 10, 6, 24}, {3, 4});
  ExpectTensorNear(Eval("cumprod", {y}, Scan(1, false, true)), {24, 24, 12, 4, 30, 6, 6, 3, 40, 10, 2, 2}, {3, 4});
  ExpectTensorNear(Eval("cumprod", {y}, Scan(0, true)), {1, 1, 1, 1, 1, 2, 3, 4, 5, 2, 6, 12}, {3, 4});
}

TEST_P(ScanOps, Empty) {
  for (const char* op : {"cumsum", "cumprod"}) {
    SCOPED_TRACE(op);
    ExpectTensorNear(Eval(op, {MakeTensorOf(GetParam(), {}, {0, 3})}), {}, {0, 3});
    ExpectTensorNear(Eval(op, {MakeTensorOf(GetParam(), {}, {2, 0})}, Scan(1, true, true)), {}, {2, 0});
    ExpectTensorNear(Eval(op, {MakeTensorOf(GetParam(), {}, {0})}, Scan(-1)), {}, {0});
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ScanOps,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// A long f16 scan accumulates in f32: 4096 ones sum to 4096 (an f16
// accumulator would stop at 2048, where 2048 + 1 rounds back to 2048).
TEST(ScanOps, HalfAccumulatesInFloat) {
  const Tensor ones = MakeTensorOf(DType::kF16, std::vector<double>(4096, 1.0), {4096});
  const Tensor y = Eval("cumsum", {ones});
  ASSERT_EQ(y.dtype(), DType::kF16);
  EXPECT_EQ(static_cast<float>(y.data<half>()[2047]), 2048.0f);
  EXPECT_EQ(static_cast<float>(y.data<half>()[4095]), 4096.0f);
  // 2050 is an f16 value; 2049 is not (rounds to even, 2048).
  EXPECT_EQ(static_cast<float>(y.data<half>()[2049]), 2050.0f);
}

// Integers wrap around, by hand: 2^16 * 2^16 = 2^32 = 0 (mod 2^32).
TEST(ScanOps, IntegersWrap) {
  ExpectTensorEq<int32_t>(Eval("cumprod", {MakeTensor<int32_t>({65536, 65536, 3}, {3})}), {65536, 0, 0}, {3});
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  ExpectTensorEq<int32_t>(Eval("cumsum", {MakeTensor<int32_t>({max, 1}, {2})}), {max, min}, {2});
  ExpectTensorEq<int64_t>(Eval("cumsum", {MakeTensor<int64_t>({int64_t{1} << 40, 5}, {2})}, Scan(0, false, true)),
                          {(int64_t{1} << 40) + 5, 5}, {2});
}

// Large enough to be split over threads: against a plain loop.
TEST(ScanOps, ParallelMatchesSequential) {
  const int64_t outer = 7, n = 53, inner = 300;
  const Tensor x = test::RandomF64({outer, n, inner}, -1, 1, 5);
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      std::vector<double> want(static_cast<size_t>(outer * n * inner));
      const double* px = x.data<double>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < inner; ++j) {
          double acc = 0;
          for (int64_t s = 0; s < n; ++s) {
            const int64_t i = reverse ? n - 1 - s : s, at = (o * n + i) * inner + j;
            if (exclusive) {
              want[at] = acc;
              acc += px[at];
            } else {
              acc += px[at];
              want[at] = acc;
            }
          }
        }
      }
      ExpectTensorNear(Eval("cumsum", {x}, Scan(1, exclusive, reverse)), want, {outer, n, inner}, 1e-12);
    }
  }
}

TEST(ScanOps, Errors) {
  for (const char* op : {"cumsum", "cumprod"}) {
    const std::string name = op;
    ExpectError(test::RunOp1(op, {MakeTensor<float>({1}, {})}), Code::kInvalidArgument,
                name + ": input must have rank >= 1, got a scalar");
    ExpectError(test::RunOp1(op, {MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})}, Scan(2)), Code::kInvalidArgument,
                name + ": axis 2 is out of range for rank 2 (input shape [2, 3])");
    ExpectError(test::RunOp1(op, {MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})}, Scan(-3)), Code::kInvalidArgument,
                name + ": axis -3 is out of range for rank 2 (input shape [2, 3])");
    // The kernel repeats the check for shapes unknown at build time.
    ExpectError(test::RunKernel(op, {MakeTensor<float>({1, 2}, {2})}, Scan(1)), Code::kInvalidArgument,
                name + ": axis 1 is out of range for rank 1 (input shape [2])");
    ExpectError(test::RunKernel(op, {MakeTensor<float>({1}, {})}), Code::kInvalidArgument,
                name + ": input must have rank >= 1, got a scalar");
    EXPECT_FALSE(test::RunOp1(op, {MakeTensor<bool>({true}, {1})}).ok());
    EXPECT_EQ(test::InferShapesString(op, {PartialShape({-1, 4})}, {DType::kF32}, Scan(-1)), "[?, 4]");
    EXPECT_EQ(test::InferShapesString(op, {PartialShape()}, {DType::kF32}, Scan(5)), "<unknown>");
    EXPECT_EQ(test::InferShapesString(op, {PartialShape({-1, 4})}, {DType::kF32}, Scan(2)),
              name + ": axis 2 is out of range for rank 2 (input shape [?, 4])");
  }
}

TEST(ScanOps, Gradients) {
  const Tensor x = test::RandomF64({2, 3, 4}, -2, 2, 3);
  const Tensor away_from_zero = test::RandomF64({3, 4}, 0.5, 1.5, 4);
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      SCOPED_TRACE(testing::Message() << "exclusive " << exclusive << " reverse " << reverse);
      EXPECT_GRADIENT_OK("cumsum", {x}, Scan(1, exclusive, reverse));
      EXPECT_GRADIENT_OK("cumsum", {x}, Scan(-1, exclusive, reverse));
      EXPECT_GRADIENT_OK("cumprod", {away_from_zero}, Scan(0, exclusive, reverse));
      EXPECT_GRADIENT_OK("cumprod", {away_from_zero}, Scan(-1, exclusive, reverse));
    }
  }
}

}  // namespace
}  // namespace tfg
