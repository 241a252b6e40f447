#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(ExpandDimsOpTest, InsertsAOne) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("expand_dims", {Iota(dtype, {2, 3})}, {{"axis", int64_t{0}}}, dtype, {1, 2, 3}, {0, 1, 2, 3, 4, 5});
    ExpectOp("expand_dims", {Iota(dtype, {2, 3})}, {{"axis", int64_t{-1}}}, dtype, {2, 3, 1}, {0, 1, 2, 3, 4, 5});
  }
  ExpectOp("expand_dims", {Iota(DType::kF32, {2, 3})}, {{"axis", int64_t{1}}}, DType::kF32, {2, 1, 3},
           {0, 1, 2, 3, 4, 5});
  ExpectOp("expand_dims", {Make(DType::kF32, {4}, {})}, {{"axis", int64_t{0}}}, DType::kF32, {1}, {4});
}

TEST(ExpandDimsOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("expand_dims", {Iota(DType::kF32, {2, 3})}, {{"axis", int64_t{3}}}), Code::kInvalidArgument,
              "expand_dims: axis 3 is out of range for a tensor of rank 3");
  EXPECT_EQ(InferShapesString("expand_dims", {PartialShape({-1, 3})}, {DType::kF32}, {{"axis", int64_t{-2}}}),
            "[?, 1, 3]");
}

TEST(ExpandDimsOpTest, Gradients) {
  EXPECT_GRADIENT_OK("expand_dims", {RandomF64({2, 3})}, {{"axis", int64_t{1}}});
}

}  // namespace
}  // namespace tfg::test
