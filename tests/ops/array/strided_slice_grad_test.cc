// strided_slice_grad: dy written back into zeros where the slice read
// (expected values: NumPy, x = zeros(shape); x[index] = dy).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

// m[::-1, 1:3] on a (3, 4) tensor.
const AttrMap kReversedColumns = {{"begin", Ints{0, 1}}, {"end", Ints{0, 3}},    {"strides", Ints{-1, 1}},
                                  {"begin_mask", int64_t{1}}, {"end_mask", int64_t{1}}};
// t[:, -1, ::-3] on a (2, 3, 4) tensor.
const AttrMap kShrinkAndStep = {{"begin", Ints{0, -1, 0}},  {"end", Ints{0, 0, 0}},         {"strides", Ints{1, 1, -3}},
                                {"begin_mask", int64_t{5}}, {"end_mask", int64_t{5}}, {"shrink_axis_mask", int64_t{2}}};

TEST(StridedSliceGradOpTest, ScattersIntoZeros) {
  ExpectOp("strided_slice_grad", {Iota(DType::kF32, {3, 2}), Iota(DType::kF32, {3, 4})}, kReversedColumns,
           DType::kF32, {3, 4}, {0, 4, 5, 0, 0, 2, 3, 0, 0, 0, 1, 0});
  ExpectOp("strided_slice_grad", {Make(DType::kI32, {1, 2, 3, 4}, {2, 2}), Iota(DType::kString, {2, 3, 4})},
           kShrinkAndStep, DType::kI32, {2, 3, 4},
           {0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3});
}

TEST(StridedSliceGradOpTest, ShapeMismatchIsAnError) {
  ExpectError(RunOp1("strided_slice_grad", {Iota(DType::kF32, {2, 2}), Iota(DType::kF32, {3, 4})}, kReversedColumns),
              Code::kInvalidArgument, "dy has shape [2, 2] but the slice of [3, 4] has shape [3, 2]");
}

TEST(StridedSliceGradOpTest, Gradients) {
  EXPECT_GRADIENT_OK("strided_slice", {RandomF64({3, 4})}, kReversedColumns);
  EXPECT_GRADIENT_OK("strided_slice", {RandomF64({2, 3, 4})}, kShrinkAndStep);
  GradCheckOptions wrt_dy;
  wrt_dy.wrt = {0};
  EXPECT_GRADIENT_OK("strided_slice_grad", {RandomF64({3, 2}), RandomF64({3, 4})}, kReversedColumns, wrt_dy);
}

}  // namespace
}  // namespace tfg::test
