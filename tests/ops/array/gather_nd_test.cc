// gather_nd vs tf.gather_nd. Expected values computed with NumPy: fancy
// indexing p[tuple(t)] for every index tuple t of indices.reshape(-1, d),
// reshaped to indices.shape[:-1] + p.shape[d:] (p = np.arange(n).reshape(...)).
#include "ops/array/gather_nd.h"

#include <limits>

#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(GatherNdOpTest, FullIndexTuples) {
  // np.arange(6).reshape(3, 2)[[0, 2, 1], [1, 0, 1]]
  for (DType dtype : kAllDTypes) {
    ExpectOp("gather_nd", {Iota(dtype, {3, 2}), MakeTensor<int32_t>({0, 1, 2, 0, 1, 1}, {3, 2})}, {}, dtype, {3},
             {1, 4, 3});
  }
}

TEST(GatherNdOpTest, SliceGathers) {
  for (DType dtype : kAllDTypes) {
    // np.arange(12).reshape(3, 2, 2)[[2, 0]]: whole [2, 2] slices.
    ExpectOp("gather_nd", {Iota(dtype, {3, 2, 2}), MakeTensor<int64_t>({2, 0}, {2, 1})}, {}, dtype, {2, 2, 2},
             {8, 9, 10, 11, 0, 1, 2, 3});
    // np.arange(12).reshape(3, 2, 2)[[1, 2], [0, 1]]: rows of the last axis.
    ExpectOp("gather_nd", {Iota(dtype, {3, 2, 2}), MakeTensor<int64_t>({1, 0, 2, 1}, {2, 2})}, {}, dtype, {2, 2},
             {4, 5, 10, 11});
  }
}

TEST(GatherNdOpTest, BatchOfIndexTuplesWithExtraDims) {
  for (DType dtype : {DType::kF32, DType::kI64, DType::kString}) {
    // np.arange(12).reshape(3, 4)[[[0, 1], [2, 0]], [[0, 2], [3, 3]]]
    ExpectOp("gather_nd", {Iota(dtype, {3, 4}), MakeTensor<int32_t>({0, 0, 1, 2, 2, 3, 0, 3}, {2, 2, 2})}, {}, dtype,
             {2, 2}, {0, 6, 11, 3});
    // Index tuples of depth 1 in a [2, 1] batch: output [2, 1, 4].
    ExpectOp("gather_nd", {Iota(dtype, {3, 4}), MakeTensor<int64_t>({2, 0}, {2, 1, 1})}, {}, dtype, {2, 1, 4},
             {8, 9, 10, 11, 0, 1, 2, 3});
  }
}

TEST(GatherNdOpTest, DepthZeroRepeatsParams) {
  // indices of shape [2, 0]: two empty tuples, each all of params.
  ExpectOp("gather_nd", {Iota(DType::kF32, {2}), MakeTensor<int32_t>({}, {2, 0})}, {}, DType::kF32, {2, 2},
           {0, 1, 0, 1});
}

TEST(GatherNdOpTest, EmptyIndices) {
  ExpectOp("gather_nd", {Iota(DType::kF32, {3, 2}), MakeTensor<int32_t>({}, {0, 2})}, {}, DType::kF32, {0}, {});
  ExpectOp("gather_nd", {Iota(DType::kF64, {3, 2}), MakeTensor<int64_t>({}, {0, 1})}, {}, DType::kF64, {0, 2}, {});
  ExpectOp("gather_nd", {Iota(DType::kF32, {0, 3}), MakeTensor<int32_t>({}, {4, 0, 1})}, {}, DType::kF32, {4, 0, 3},
           {});
}

TEST(GatherNdOpTest, OutOfRangeIndexIsAnError) {
  ExpectError(RunOp1("gather_nd", {Iota(DType::kF32, {3, 2}), MakeTensor<int32_t>({0, 1, 3, 0}, {2, 2})}),
              Code::kInvalidArgument,
              "gather_nd: index tuple [3, 0] at position [1] of indices is out of range for params f32[3, 2]: "
              "entry 0 is 3, not in [0, 3)");
  ExpectError(RunOp1("gather_nd", {Iota(DType::kI32, {3, 2}), MakeTensor<int64_t>({0, 1, 1, -1}, {1, 2, 2})}),
              Code::kInvalidArgument,
              "index tuple [1, -1] at position [0, 1] of indices is out of range for params i32[3, 2]: "
              "entry 1 is -1, not in [0, 2)");
  // A single tuple (indices of rank 1) is at position [].
  ExpectError(RunOp1("gather_nd", {Iota(DType::kF32, {3, 2}), Tensor::Vector<int32_t>({1, 2})}),
              Code::kInvalidArgument, "index tuple [1, 2] at position [] of indices");
  // As TensorFlow: asking empty params for index tuples is an error.
  ExpectError(RunOp1("gather_nd", {Iota(DType::kF32, {3, 0}), MakeTensor<int32_t>({1}, {1, 1})}),
              Code::kInvalidArgument, "gather_nd: requested 1 index tuples but params f32[3, 0] are empty");
}

TEST(GatherNdOpTest, RankErrors) {
  ExpectError(RunOp1("gather_nd", {Iota(DType::kF32, {3, 2}), MakeTensor<int32_t>({0, 0, 0}, {1, 3})}),
              Code::kInvalidArgument,
              "gather_nd: indices [1, 3] have index depth 3 (their last dimension) but params [3, 2] have rank 2");
  ExpectError(RunOp1("gather_nd", {Iota(DType::kF32, {3, 2}), Tensor::Scalar<int32_t>(0)}), Code::kInvalidArgument,
              "gather_nd: indices must have rank >= 1, got a scalar");
  ExpectError(RunOp1("gather_nd", {Tensor::Scalar<float>(1), MakeTensor<int32_t>({}, {1, 0})}),
              Code::kInvalidArgument, "gather_nd: params must have rank >= 1, got a scalar");
  // The kernel repeats the checks when shapes were unknown at build time.
  ExpectError(RunKernel("gather_nd", {Iota(DType::kF32, {3, 2}), MakeTensor<int32_t>({0, 0, 0}, {1, 3})}),
              Code::kInvalidArgument, "have index depth 3 (their last dimension) but params [3, 2] have rank 2");
}

TEST(GatherNdOpTest, ShapeFunction) {
  const std::vector<DType> types = {DType::kF32, DType::kI32};
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({-1, 5, 7}), PartialShape({4, -1, 2})}, types),
            "[4, ?, 7]");
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({-1, 5}), PartialShape({-1, 2})}, types), "[?]");
  // Unknown depth or unknown params rank: the output rank is unknown.
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({3, 5}), PartialShape({4, -1})}, types),
            PartialShape::Unknown().ToString());
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape::Unknown(), PartialShape({4, 1})}, types),
            PartialShape::Unknown().ToString());
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({3, 5}), PartialShape({4, 3})}, types),
            "gather_nd: indices [4, 3] have index depth 3 (their last dimension) but params [3, 5] have rank 2");
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({}), PartialShape({4, 0})}, types),
            "gather_nd: params must have rank >= 1, got a scalar");
  EXPECT_EQ(InferShapesString("gather_nd", {PartialShape({3}), PartialShape({})}, types),
            "gather_nd: indices must have rank >= 1, got a scalar");
  // Float indices are rejected by the signature.
  EXPECT_FALSE(InferShapes("gather_nd", {PartialShape({2}), PartialShape({4, 1})}, {DType::kF32, DType::kF32}).ok());
}

TEST(GatherNdOpTest, LargeInputsAcrossThreads) {
  // params[i, j] = 3i + j for a 2000x3 matrix; tuples (1999 - k, k % 3): out[k] = 3(1999 - k) + k % 3.
  std::vector<int64_t> idx;
  for (int64_t k = 0; k < 2000; ++k) {
    idx.push_back(1999 - k);
    idx.push_back(k % 3);
  }
  auto r = RunOp1("gather_nd", {Iota(DType::kI64, {2000, 3}), MakeTensor<int64_t>(idx, {2000, 2})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shape(), TensorShape({2000}));
  for (int64_t k = 0; k < 2000; ++k) ASSERT_EQ(r->data<int64_t>()[k], 3 * (1999 - k) + k % 3) << k;
}

// The helper scatter_nd shares (ops/array/gather_nd.h).
TEST(NdSliceNumbers, RowMajorOffsetsOfTheTuples) {
  // dims [3, 4, 5], depth 2: tuple (i, j) is slice 4i + j.
  auto s = array::NdSliceNumbers("op", MakeTensor<int32_t>({2, 3, 0, 1, 1, 0}, {3, 2}), {3, 4, 5}, "x");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, (std::vector<int64_t>{11, 1, 4}));
  EXPECT_EQ(array::NdSliceNumbers("op", MakeTensor<int64_t>({2, 4}, {1, 2}), {3, 4, 5}, "x").status().message(),
            "op: index tuple [2, 4] at position [0] of indices is out of range for x: entry 1 is 4, not in [0, 4)");
}

// Found by op_fuzz: depth-0 index tuples (an empty last dim) can be
// 2**62 in number while the index tensor holds nothing. Their output is
// refused before any per-tuple work (it used to be an uncaught
// length_error), and depth-0 tuples into an empty tensor are an error.
TEST(GatherNdOpTest, HugeCountsOfDepthZeroTuples) {
  const Tensor empty_index = MakeTensor<int32_t>({}, {int64_t{4890909195324358656}, 1, 0});
  auto r = RunKernel("gather_nd", {Iota(DType::kF32, {2, 2}), empty_index});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(array::NdSliceNumbers("op", empty_index, {2, 0}, "x").status().message(),
            "op: 4890909195324358656 index tuples select from the empty x");
}

// Found by op_fuzz: no index tuples over params whose trailing dims
// multiply to 2**63 - 1 (allowed: a leading 0 empties them). The work
// estimate slice + 20 overflowed.
TEST(GatherNdOpTest, NoTuplesOverHugeSlices) {
  const int64_t huge = std::numeric_limits<int64_t>::max();
  auto r = RunKernel("gather_nd", {MakeTensorOf(DType::kF64, {}, {0, huge, 1}), MakeTensor<int32_t>({}, {0, 1, 1})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape(), TensorShape({0, 1, huge, 1}));
}

TEST(GatherNdOpTest, Gradients) {
  GradCheckOptions wrt_params;
  wrt_params.wrt = {0};
  // Repeated tuples: their gradients add up.
  EXPECT_GRADIENT_OK("gather_nd", {RandomF64({3, 2}), MakeTensor<int32_t>({0, 1, 2, 0, 0, 1}, {3, 2})}, {},
                     wrt_params);
  EXPECT_GRADIENT_OK("gather_nd", {RandomF64({3, 2, 2}), MakeTensor<int64_t>({2, 0, 2}, {3, 1})}, {}, wrt_params);
  EXPECT_GRADIENT_OK("gather_nd", {RandomF64({3, 4}), MakeTensor<int64_t>({0, 0, 1, 2, 2, 3, 1, 2}, {2, 2, 2})}, {},
                     wrt_params);
  ExpectGradientShapeAgnostic("gather_nd", {RandomF64({3, 2, 2}), MakeTensor<int32_t>({1, 0, 2, 1}, {2, 2})}, {},
                              {0});
}

TEST(GatherNdOpTest, GradientIsScatterNdOfDy) {
  // dparams of sum(w * gather_nd(p, [[0, 1], [0, 1], [2, 0]])) with dy = w:
  // [[0, w0 + w1], [0, 0], [w2, 0]].
  auto g = SymbolicGradients("gather_nd",
                             {RandomF64({3, 2}), MakeTensor<int32_t>({0, 1, 0, 1, 2, 0}, {3, 2})}, {},
                             MakeTensorOf(DType::kF64, {1, 10, 100}, {3}), {{0}, FeedShapes::kStatic});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 1u);
  ExpectTensorNear((*g)[0], {0, 11, 0, 0, 100, 0}, {3, 2});
}

}  // namespace
}  // namespace tfg::test
