// concat vs numpy.concatenate.
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(ConcatOpTest, AlongEachAxis) {
  for (DType dtype : kAllDTypes) {
    // concatenate([arange(6).reshape(2,3), arange(6,10).reshape(2,2), arange(10,14).reshape(2,2)], axis=1)
    const Tensor a = Iota(dtype, {2, 3});
    const Tensor b = Make(dtype, {6, 7, 8, 9}, {2, 2});
    const Tensor c = Make(dtype, {10, 11, 12, 13}, {2, 2});
    ExpectOp("concat", {a, b, c}, {{"axis", int64_t{1}}}, dtype, {2, 7}, {0, 1, 2, 6, 7, 10, 11, 3, 4, 5, 8, 9, 12, 13});
    ExpectOp("concat", {a, b, c}, {{"axis", int64_t{-1}}}, dtype, {2, 7},
             {0, 1, 2, 6, 7, 10, 11, 3, 4, 5, 8, 9, 12, 13});
    ExpectOp("concat", {a, Make(dtype, {6, 7, 8}, {1, 3})}, {{"axis", int64_t{0}}}, dtype, {3, 3},
             {0, 1, 2, 3, 4, 5, 6, 7, 8});
  }
}

TEST(ConcatOpTest, SingleAndZeroSizeInputs) {
  ExpectOp("concat", {Iota(DType::kF32, {2, 2})}, {{"axis", int64_t{0}}}, DType::kF32, {2, 2}, {0, 1, 2, 3});
  ExpectOp("concat", {Iota(DType::kF32, {2, 0}), Iota(DType::kF32, {2, 2})}, {{"axis", int64_t{1}}}, DType::kF32,
           {2, 2}, {0, 1, 2, 3});
}

TEST(ConcatOpTest, Errors) {
  ExpectError(RunOp1("concat", {Iota(DType::kF32, {2, 3}), Iota(DType::kF32, {3, 3})}, {{"axis", int64_t{1}}}),
              Code::kInvalidArgument, "input 1 has shape [3, 3] but input 0 has shape [2, 3]");
  ExpectError(RunOp1("concat", {Iota(DType::kF32, {2}), Iota(DType::kF32, {2})}, {{"axis", int64_t{1}}}),
              Code::kInvalidArgument, "axis 1 is out of range for a tensor of rank 1");
  ExpectError(RunOp1("concat", {Make(DType::kF32, {1}, {}), Make(DType::kF32, {2}, {})}, {{"axis", int64_t{0}}}),
              Code::kInvalidArgument, "cannot concatenate scalars");
}

TEST(ConcatOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("concat", {PartialShape({-1, 3}), PartialShape({2, 5})}, {DType::kF32, DType::kF32},
                              {{"axis", int64_t{1}}}),
            "[2, 8]");
  EXPECT_EQ(InferShapesString("concat", {PartialShape({2, -1}), PartialShape({2, 5})}, {DType::kF32, DType::kF32},
                              {{"axis", int64_t{1}}}),
            "[2, ?]");
  EXPECT_EQ(InferShapesString("concat", {PartialShape::Unknown(), PartialShape({2, 5})}, {DType::kF32, DType::kF32},
                              {{"axis", int64_t{0}}}),
            "[?, 5]");
  EXPECT_EQ(InferShapesString("concat", {PartialShape({2, 3}), PartialShape({2, 3, 1})},
                              {DType::kF32, DType::kF32}, {{"axis", int64_t{0}}}),
            "concat: input 1 has shape [2, 3, 1] but input 0 has shape [2, 3]; all dimensions except axis 0 must "
            "match");
}

TEST(ConcatOpTest, LargeInputsAcrossThreads) {
  // [a | b] with a[i, j] = 3i + j (2000x3) and b[i, j] = 6000 + 2i + j (2000x2).
  std::vector<double> b(4000);
  for (int i = 0; i < 4000; ++i) b[i] = 6000 + i;
  auto r = RunOp1("concat", {Iota(DType::kF64, {2000, 3}), Make(DType::kF64, b, {2000, 2})}, {{"axis", int64_t{1}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int64_t i = 0; i < 2000; i += 13) {
    for (int64_t j = 0; j < 5; ++j) {
      const double want = j < 3 ? 3.0 * i + j : 6000.0 + 2 * i + (j - 3);
      ASSERT_EQ(r->data<double>()[5 * i + j], want) << i << "," << j;
    }
  }
}

TEST(ConcatOpTest, Gradients) {
  EXPECT_GRADIENT_OK("concat", {RandomF64({2, 3}), RandomF64({2, 1}, -1, 1, 2), RandomF64({2, 2}, -1, 1, 3)},
                     {{"axis", int64_t{-1}}});
  EXPECT_GRADIENT_OK("concat", {RandomF64({1, 2}), RandomF64({3, 2}, -1, 1, 2)}, {{"axis", int64_t{0}}});
}

TEST(ConcatOpTest, GradientWithShapesKnownOnlyAtRunTime) {
  const std::vector<Tensor> in = {RandomF64({2, 3}), RandomF64({2, 1}, -1, 1, 2), RandomF64({2, 2}, -1, 1, 3)};
  ExpectGradientShapeAgnostic("concat", in, {{"axis", int64_t{1}}});
  ExpectGradientShapeAgnostic("concat", in, {{"axis", int64_t{-1}}});
  ExpectGradientShapeAgnostic("concat", {RandomF64({1, 2}), RandomF64({3, 2}, -1, 1, 2)}, {{"axis", int64_t{0}}});
}

}  // namespace
}  // namespace tfg::test
