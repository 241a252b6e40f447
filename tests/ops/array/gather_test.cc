// gather vs numpy.take on p = arange(15).reshape(5, 3).
#include "ops/array/gather.h"
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(GatherOpTest, Axis0) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("gather", {Iota(dtype, {5, 3}), Tensor::Vector<int32_t>({4, 0, 2})}, {}, dtype, {3, 3},
             {12, 13, 14, 0, 1, 2, 6, 7, 8});
  }
}

TEST(GatherOpTest, Axis1With2dIndices) {
  // np.take(p, [[2, 0], [1, 1]], axis=1)
  for (DType dtype : kAllDTypes) {
    ExpectOp("gather", {Iota(dtype, {5, 3}), MakeTensor<int64_t>({2, 0, 1, 1}, {2, 2})}, {{"axis", int64_t{1}}},
             dtype, {5, 2, 2}, {2, 0, 1, 1, 5, 3, 4, 4, 8, 6, 7, 7, 11, 9, 10, 10, 14, 12, 13, 13});
  }
}

TEST(GatherOpTest, ScalarAndEmptyIndices) {
  ExpectOp("gather", {Iota(DType::kF32, {5, 3}), Tensor::Scalar<int32_t>(3)}, {}, DType::kF32, {3}, {9, 10, 11});
  ExpectOp("gather", {Iota(DType::kF32, {5, 3}), MakeTensor<int32_t>({}, {0})}, {}, DType::kF32, {0, 3}, {});
  ExpectOp("gather", {Iota(DType::kF32, {0, 3}), MakeTensor<int32_t>({}, {0})}, {{"axis", int64_t{0}}},
           DType::kF32, {0, 3}, {});
}

// Found by op_fuzz: an empty output over 2**31 outer rows of params (a
// later dim is 0) looped over every row, copying nothing, for minutes.
TEST(GatherOpTest, EmptyOutputOverHugeOuterRowsReturnsAtOnce) {
  auto r = RunKernel("gather", {MakeTensorOf(DType::kI32, {}, {2133526016, 1711013905, 2, 0, 1}),
                                MakeTensor<int32_t>({1}, {1, 1, 1})},
                     {{"axis", int64_t{1}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape(), TensorShape({2133526016, 1, 1, 1, 2, 0, 1}));
}

TEST(GatherOpTest, OutOfRangeIndexIsAnError) {
  ExpectError(RunOp1("gather", {Iota(DType::kF32, {5, 3}), Tensor::Vector<int32_t>({1, 5})}),
              Code::kInvalidArgument,
              "gather: index 5 at position [1] of indices is out of range [0, 5) for axis 0 of params f32[5, 3]");
  ExpectError(RunOp1("gather", {Iota(DType::kF32, {5, 3}), MakeTensor<int64_t>({0, 1, -1, 2}, {2, 2})},
                     {{"axis", int64_t{1}}}),
              Code::kInvalidArgument, "index -1 at position [1, 0] of indices is out of range [0, 3) for axis 1");
  // Indexing an empty axis: every index is out of range.
  ExpectError(RunOp1("gather", {Iota(DType::kF32, {0, 3}), Tensor::Vector<int32_t>({0})}), Code::kInvalidArgument,
              "out of range [0, 0)");
}

TEST(GatherOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("gather", {PartialShape({-1, 7, 3}), PartialShape({4, -1})},
                              {DType::kF32, DType::kI32}, {{"axis", int64_t{1}}}),
            "[?, 4, ?, 3]");
  EXPECT_EQ(InferShapesString("gather", {PartialShape({}), PartialShape({4})}, {DType::kF32, DType::kI32}),
            "gather: params must have rank >= 1, got a scalar");
  // Float indices are rejected by the signature.
  EXPECT_FALSE(InferShapes("gather", {PartialShape({2}), PartialShape({4})}, {DType::kF32, DType::kF32}).ok());
}

// The checks the CPU and GPU kernels share (ops/array/gather.h).
TEST(GatherLayout, ParamsAroundTheAxis) {
  auto l = array::GatherLayoutOf({3, 6, 2}, {2, 3}, 1);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(std::make_tuple(l->axis, l->outer, l->limit, l->inner), std::make_tuple(1, 3, 6, 2));
  EXPECT_EQ(l->gathered, TensorShape({3, 2, 3, 2}));
  auto last = array::GatherLayoutOf({3, 6, 2}, {4}, -1);
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(std::make_tuple(last->axis, last->outer, last->limit, last->inner), std::make_tuple(2, 18, 2, 1));
  EXPECT_EQ(last->gathered, TensorShape({3, 6, 4}));
  EXPECT_EQ(array::GatherLayoutOf({}, {4}, 0).status().message(), "gather: params must have rank >= 1, got a scalar");
  EXPECT_EQ(array::GatherLayoutOf({3, 6, 2}, {4}, 3).status().message(),
            "gather: axis 3 is out of range for a tensor of rank 3 (expected -3 <= axis < 3)");
}

TEST(GatherLayout, GradientChecksValuesAgainstTheGatheredShape) {
  auto l = array::GatherGradLayoutOf({3, 2, 3, 2}, {2, 3}, {3, 6, 2}, 1);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(std::make_tuple(l->outer, l->limit, l->inner), std::make_tuple(3, 6, 2));
  EXPECT_EQ(array::GatherGradLayoutOf({3, 6, 2}, {2, 3}, {3, 6, 2}, 1).status().message(),
            "gather_grad: values have shape [3, 6, 2] but gathering indices [2, 3] from params [3, 6, 2] gives "
            "[3, 2, 3, 2]");
  EXPECT_EQ(array::GatherGradLayoutOf({4}, {4}, {3, 6, 2}, -4).status().message(),
            "gather_grad: axis -4 is out of range for params of rank 3");
  EXPECT_EQ(array::GatherGradLayoutOf({4}, {4}, {}, 0).status().message(),
            "gather_grad: params must have rank >= 1, got a scalar");
}

TEST(GatherOpTest, LargeInputsAcrossThreads) {
  // params[i, j] = 4i + j for a 3000x4 matrix; indices reversed: out[k, j] = 4(2999 - k) + j.
  std::vector<int32_t> idx(3000);
  for (int32_t k = 0; k < 3000; ++k) idx[k] = 2999 - k;
  auto r = RunOp1("gather", {Iota(DType::kI64, {3000, 4}), Tensor::Vector<int32_t>(idx)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int64_t k = 0; k < 3000; k += 7) {
    for (int64_t j = 0; j < 4; ++j) ASSERT_EQ(r->data<int64_t>()[4 * k + j], 4 * (2999 - k) + j);
  }
}

TEST(GatherOpTest, Gradients) {
  GradCheckOptions wrt_params;
  wrt_params.wrt = {0};
  EXPECT_GRADIENT_OK("gather", {RandomF64({5, 3}), Tensor::Vector<int32_t>({4, 0, 4})}, {}, wrt_params);
  EXPECT_GRADIENT_OK("gather", {RandomF64({5, 3}), MakeTensor<int64_t>({2, 0, 1, 1}, {2, 2})},
                     {{"axis", int64_t{1}}}, wrt_params);
}

}  // namespace
}  // namespace tfg::test
