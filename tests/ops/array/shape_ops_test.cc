#include "tests/ops/array/array_test_util.h"

namespace tfg::test {
namespace {

TEST(ShapeOpsOpTest, ShapeSizeRank) {
  for (DType dtype : kAllDTypes) {
    const Tensor x = Iota(dtype, {2, 0, 5});
    auto s = RunOp1("shape", {x});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ExpectTensorEq<int32_t>(*s, {2, 0, 5}, {3});
    auto n = RunOp1("size", {x}, {{"out_type", DType::kI64}});
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    ExpectTensorEq<int64_t>(*n, {0}, {});
    auto r = RunOp1("rank", {x});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ExpectTensorEq<int32_t>(*r, {3}, {});
  }
  auto s = RunOp1("shape", {Make(DType::kF32, {1}, {})}, {{"out_type", DType::kI64}});
  ASSERT_TRUE(s.ok());
  ExpectTensorEq<int64_t>(*s, {}, {0});
  auto n = RunOp1("size", {Iota(DType::kF32, {3, 4})});
  ASSERT_TRUE(n.ok());
  ExpectTensorEq<int32_t>(*n, {12}, {});
}

TEST(ShapeOpsOpTest, ShapeFunctions) {
  EXPECT_EQ(InferShapesString("shape", {PartialShape({-1, 3})}, {DType::kF32}), "[2]");
  EXPECT_EQ(InferShapesString("shape", {PartialShape::Unknown()}, {DType::kF32}), "[?]");
  EXPECT_EQ(InferShapesString("size", {PartialShape::Unknown()}, {DType::kF32}), "[]");
  EXPECT_EQ(InferShapesString("rank", {PartialShape({-1})}, {DType::kString}), "[]");
}

}  // namespace
}  // namespace tfg::test
