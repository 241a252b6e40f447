// stack vs numpy.stack of x = arange(6).reshape(2, 3), y = arange(6, 12).reshape(2, 3).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(StackOpTest, EachAxis) {
  for (DType dtype : kAllDTypes) {
    const Tensor x = Iota(dtype, {2, 3});
    const Tensor y = Make(dtype, {6, 7, 8, 9, 10, 11}, {2, 3});
    ExpectOp("stack", {x, y}, {}, dtype, {2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    ExpectOp("stack", {x, y}, {{"axis", int64_t{1}}}, dtype, {2, 2, 3}, {0, 1, 2, 6, 7, 8, 3, 4, 5, 9, 10, 11});
    ExpectOp("stack", {x, y}, {{"axis", int64_t{-1}}}, dtype, {2, 3, 2}, {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11});
  }
}

TEST(StackOpTest, ScalarsBecomeAVector) {
  ExpectOp("stack", {Make(DType::kI32, {4}, {}), Make(DType::kI32, {5}, {}), Make(DType::kI32, {6}, {})}, {},
           DType::kI32, {3}, {4, 5, 6});
}

TEST(StackOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("stack", {Iota(DType::kF32, {2, 3}), Iota(DType::kF32, {3, 2})}), Code::kInvalidArgument,
              "input 1 has shape [3, 2] but the inputs before it have shape [2, 3]");
  ExpectError(RunOp1("stack", {Iota(DType::kF32, {2}), Iota(DType::kF32, {2})}, {{"axis", int64_t{2}}}),
              Code::kInvalidArgument, "axis 2 is out of range for a tensor of rank 2");
  EXPECT_EQ(InferShapesString("stack", {PartialShape({-1, 3}), PartialShape({4, -1})}, {DType::kF32, DType::kF32},
                              {{"axis", int64_t{1}}}),
            "[4, 2, 3]");
}

TEST(StackOpTest, Gradients) {
  EXPECT_GRADIENT_OK("stack", {RandomF64({2, 3}), RandomF64({2, 3}, -1, 1, 2)}, {{"axis", int64_t{1}}});
  EXPECT_GRADIENT_OK("stack", {RandomF64({}), RandomF64({}, -1, 1, 2), RandomF64({}, -1, 1, 3)});
}

}  // namespace
}  // namespace tfg::test
