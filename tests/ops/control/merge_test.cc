// merge's shape function on calls the builders never make (found by
// op_fuzz: a merge node with no inputs read input 0 of an empty list).
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg::merge_test {
namespace {

TEST(MergeShape, NoInputsIsAnError) {
  EXPECT_EQ(test::InferShapesString("merge", {}, {}, {{"T", DType::kF32}}), "merge needs at least one input");
}

TEST(MergeShape, InputsOfOneShapeGiveThatShape) {
  EXPECT_EQ(test::InferShapesString("merge", {PartialShape{2, 3}, PartialShape{2, 3}}, {DType::kF32, DType::kF32}),
            "[2, 3];[]");
}

}  // namespace
}  // namespace tfg::merge_test
