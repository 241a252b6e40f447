// scatter_nd vs tf.scatter_nd. Expected values computed with NumPy: out =
// np.zeros(shape); for t, u in zip(indices.reshape(-1, d), updates.reshape
// (-1, *shape[d:])): out[tuple(t)] += u (the first case is the example of
// tf.scatter_nd's documentation).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

const DType kScatterNdDTypes[] = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64};

TEST(ScatterNdOpTest, ScalarUpdatesIntoAVector) {
  for (DType dtype : kScatterNdDTypes) {
    ExpectOp("scatter_nd",
             {MakeTensor<int32_t>({4, 3, 1, 7}, {4, 1}), Make(dtype, {9, 10, 11, 12}, {4}),
              Tensor::Vector<int32_t>({8})},
             {}, dtype, {8}, {0, 11, 0, 10, 9, 0, 0, 12});
  }
}

TEST(ScatterNdOpTest, SliceUpdates) {
  for (DType dtype : kScatterNdDTypes) {
    // Two [2, 2] slices into rows 0 and 2 of a [3, 2, 2] output.
    ExpectOp("scatter_nd",
             {MakeTensor<int64_t>({0, 2}, {2, 1}), Iota(dtype, {2, 2, 2}), Tensor::Vector<int64_t>({3, 2, 2})}, {},
             dtype, {3, 2, 2}, {0, 1, 2, 3, 0, 0, 0, 0, 4, 5, 6, 7});
  }
}

TEST(ScatterNdOpTest, DuplicateIndicesAccumulate) {
  // (1, 0) twice: 1 + 2; (0, 1): 5.
  for (DType dtype : kScatterNdDTypes) {
    ExpectOp("scatter_nd",
             {MakeTensor<int64_t>({1, 0, 1, 0, 0, 1}, {3, 2}), Make(dtype, {1, 2, 5}, {3}),
              Tensor::Vector<int32_t>({2, 2})},
             {}, dtype, {2, 2}, {0, 5, 3, 0});
  }
}

TEST(ScatterNdOpTest, BatchOfIndexTuplesWithExtraDims) {
  // indices [[[0], [2]], [[2], [1]]], updates np.arange(12).reshape(2, 2, 3), shape [3, 3]:
  // row 2 gets [3, 4, 5] + [6, 7, 8].
  ExpectOp("scatter_nd",
           {MakeTensor<int32_t>({0, 2, 2, 1}, {2, 2, 1}), Iota(DType::kF32, {2, 2, 3}),
            Tensor::Vector<int32_t>({3, 3})},
           {}, DType::kF32, {3, 3}, {0, 1, 2, 9, 10, 11, 9, 11, 13});
}

TEST(ScatterNdOpTest, EmptyIndices) {
  ExpectOp("scatter_nd",
           {MakeTensor<int32_t>({}, {0, 1}), MakeTensorOf(DType::kF32, {}, {0, 2}), Tensor::Vector<int32_t>({3, 2})},
           {}, DType::kF32, {3, 2}, {0, 0, 0, 0, 0, 0});
  ExpectOp("scatter_nd",
           {MakeTensor<int64_t>({}, {0, 2}), MakeTensorOf(DType::kF64, {}, {0}), Tensor::Vector<int64_t>({0, 2})}, {},
           DType::kF64, {0, 2}, {});
}

TEST(ScatterNdOpTest, OutOfRangeIndexIsAnError) {
  ExpectError(RunOp1("scatter_nd", {MakeTensor<int32_t>({4, 8}, {2, 1}), MakeTensorOf(DType::kF32, {1, 2}, {2}),
                                    Tensor::Vector<int32_t>({8})}),
              Code::kInvalidArgument,
              "scatter_nd: index tuple [8] at position [1] of indices is out of range for output shape [8]: "
              "entry 0 is 8, not in [0, 8)");
  ExpectError(RunOp1("scatter_nd", {MakeTensor<int64_t>({0, 0, 1, -2}, {2, 1, 2}),
                                    MakeTensorOf(DType::kF32, {1, 2}, {2, 1}), Tensor::Vector<int32_t>({2, 2})}),
              Code::kInvalidArgument,
              "index tuple [1, -2] at position [1, 0] of indices is out of range for output shape [2, 2]: "
              "entry 1 is -2, not in [0, 2)");
  ExpectError(RunOp1("scatter_nd", {MakeTensor<int32_t>({0}, {1, 1}), MakeTensorOf(DType::kF32, {}, {1, 0}),
                                    Tensor::Vector<int32_t>({3, 0})}),
              Code::kInvalidArgument, "scatter_nd: 1 index tuples given for an empty output of shape [3, 0]");
}

TEST(ScatterNdOpTest, UpdatesShapeMismatchNamesBothShapes) {
  // The kernel, with the run-time shape.
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({4, 3, 1, 7}, {4, 1}),
                                       MakeTensorOf(DType::kF32, {1, 2, 3}, {3}), Tensor::Vector<int32_t>({8})}),
              Code::kInvalidArgument,
              "scatter_nd: updates have shape [3] but indices [4, 1] into output shape [8] need updates of shape [4]");
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({0, 2}, {2, 1}), Iota(DType::kF32, {2, 3}),
                                       Tensor::Vector<int32_t>({3, 2})}),
              Code::kInvalidArgument,
              "updates have shape [2, 3] but indices [2, 1] into output shape [3, 2] need updates of shape [2, 2]");
  // The shape function, with a constant shape.
  const Tensor shape = Tensor::Vector<int32_t>({8});
  auto s = InferShapes("scatter_nd", {PartialShape({4, 1}), PartialShape({3}), PartialShape({1})},
                       {DType::kI32, DType::kF32, DType::kI32}, {}, {nullptr, nullptr, &shape});
  ExpectError(s, Code::kInvalidArgument,
              "scatter_nd: updates have shape [3] but indices [4, 1] into output shape [8] need updates of shape [4]");
  // And without one (the graph path of RunOp1).
  ExpectError(RunOp1("scatter_nd", {MakeTensor<int32_t>({4, 3, 1, 7}, {4, 1}),
                                    MakeTensorOf(DType::kF32, {1, 2, 3}, {3}), Tensor::Vector<int32_t>({8})}),
              Code::kInvalidArgument, "scatter_nd: updates have shape [3] but indices [4, 1] into output shape [?]");
}

TEST(ScatterNdOpTest, ShapeAndIndexErrors) {
  const Tensor f = MakeTensorOf(DType::kF32, {1}, {1});
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({0, 0, 0}, {1, 3}), f, Tensor::Vector<int32_t>({2, 2})}),
              Code::kInvalidArgument,
              "scatter_nd: indices [1, 3] have index depth 3 (their last dimension) but the output shape [2, 2] has "
              "rank 2");
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({0}, {1, 1}), f, Tensor::Vector<int32_t>({2, -1})}),
              Code::kInvalidArgument, "scatter_nd: shape [2, -1] has a negative dimension");
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({0}, {1, 1}), f, MakeTensor<int32_t>({2, 2}, {1, 2})}),
              Code::kInvalidArgument, "scatter_nd: shape must be a 1-D tensor, got a tensor of shape [1, 2]");
  ExpectError(RunKernel("scatter_nd", {MakeTensor<int32_t>({}, {1, 0}), f, MakeTensor<int32_t>({}, {0})}),
              Code::kInvalidArgument, "scatter_nd: shape must have at least one dimension, got []");
  ExpectError(RunKernel("scatter_nd", {Tensor::Scalar<int32_t>(0), f, Tensor::Vector<int32_t>({2})}),
              Code::kInvalidArgument, "scatter_nd: indices must have rank >= 1, got a scalar");
}

TEST(ScatterNdOpTest, ShapeFunction) {
  const std::vector<DType> types = {DType::kI32, DType::kF32, DType::kI64};
  // A constant shape is the output shape.
  const Tensor shape = Tensor::Vector<int64_t>({5, 3});
  auto s = InferShapes("scatter_nd", {PartialShape({-1, 1}), PartialShape({-1, 3}), PartialShape({2})}, types, {},
                       {nullptr, nullptr, &shape});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)[0].ToString(), "[5, 3]");
  // Otherwise its length gives the rank, and updates the trailing dims.
  EXPECT_EQ(InferShapesString("scatter_nd", {PartialShape({-1, 1}), PartialShape({-1, 3}), PartialShape({2})}, types),
            "[?, 3]");
  EXPECT_EQ(InferShapesString("scatter_nd", {PartialShape({4, 2}), PartialShape({4}), PartialShape({2})}, types),
            "[?, ?]");
  EXPECT_EQ(InferShapesString("scatter_nd", {PartialShape({4, 1}), PartialShape({4}), PartialShape({-1})}, types),
            PartialShape::Unknown().ToString());
  EXPECT_EQ(InferShapesString("scatter_nd", {PartialShape({4, 3}), PartialShape({4}), PartialShape({2})}, types),
            "scatter_nd: indices [4, 3] have index depth 3 (their last dimension) but the output shape [?, ?] has "
            "rank 2");
  EXPECT_EQ(InferShapesString("scatter_nd", {PartialShape({4, 1}), PartialShape({4}), PartialShape({2, 1})}, types),
            "scatter_nd: shape must be a 1-D tensor, got a tensor of shape [2, 1]");
  const Tensor negative = Tensor::Vector<int64_t>({5, -3});
  ExpectError(InferShapes("scatter_nd", {PartialShape({4, 1}), PartialShape({4, 3}), PartialShape({2})}, types, {},
                          {nullptr, nullptr, &negative}),
              Code::kInvalidArgument, "scatter_nd: shape [5, -3] has a negative dimension");
  // Float updates only; float indices are rejected by the signature.
  EXPECT_FALSE(InferShapes("scatter_nd", {PartialShape({4, 1}), PartialShape({4}), PartialShape({1})},
                           {DType::kF32, DType::kF32, DType::kI32})
                   .ok());
}

TEST(ScatterNdOpTest, LargeUpdatesAcrossThreads) {
  // 3000 updates of [1, 2, ..., 64] * k into rows k % 10 of a [10, 64] output:
  // row r, column c gets (c + 1) * sum of k < 3000 with k % 10 == r = (c + 1) * (300 r + 10 * 300 * 299 / 2).
  std::vector<int32_t> idx(3000);
  std::vector<double> upd(3000 * 64);
  for (int k = 0; k < 3000; ++k) {
    idx[k] = k % 10;
    for (int c = 0; c < 64; ++c) upd[k * 64 + c] = static_cast<double>(k) * (c + 1);
  }
  auto r = RunOp1("scatter_nd", {MakeTensor<int32_t>(idx, {3000, 1}), MakeTensorOf(DType::kF64, upd, {3000, 64}),
                                 Tensor::Vector<int32_t>({10, 64})});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int row = 0; row < 10; ++row) {
    for (int c = 0; c < 64; ++c) {
      ASSERT_EQ(r->data<double>()[row * 64 + c], (c + 1) * (300.0 * row + 10.0 * 300 * 299 / 2)) << row << "," << c;
    }
  }
}

TEST(ScatterNdOpTest, Gradients) {
  GradCheckOptions wrt_updates;
  wrt_updates.wrt = {1};
  EXPECT_GRADIENT_OK("scatter_nd",
                     {MakeTensor<int32_t>({1, 0, 1, 0, 0, 1}, {3, 2}), RandomF64({3}), Tensor::Vector<int32_t>({2, 3})},
                     {}, wrt_updates);
  EXPECT_GRADIENT_OK("scatter_nd",
                     {MakeTensor<int64_t>({0, 2, 2, 1}, {2, 2, 1}), RandomF64({2, 2, 3}),
                      Tensor::Vector<int64_t>({3, 3})},
                     {}, wrt_updates);
  ExpectGradientShapeAgnostic(
      "scatter_nd", {MakeTensor<int32_t>({0, 2}, {2, 1}), RandomF64({2, 2, 2}), Tensor::Vector<int32_t>({3, 2, 2})},
      {}, {1});
}

TEST(ScatterNdOpTest, GradientIsGatherNdOfDy) {
  // Every update at (i, j) gets dy[i, j]; the repeated (1, 0) gets it twice.
  auto g = SymbolicGradients(
      "scatter_nd", {MakeTensor<int32_t>({1, 0, 1, 0, 0, 1}, {3, 2}), RandomF64({3}), Tensor::Vector<int32_t>({2, 2})},
      {}, MakeTensorOf(DType::kF64, {1, 10, 100, 1000}, {2, 2}), {{1}, FeedShapes::kStatic});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 1u);
  ExpectTensorNear((*g)[0], {100, 100, 10}, {3});
}

}  // namespace
}  // namespace tfg::test
