// top_k and its gradient helper top_k_grad. Expected values from NumPy:
// indices = np.argsort(-x, axis=-1, kind="stable")[..., :k] (largest
// first, equal values lower index first), values = np.take_along_axis(x,
// indices, -1); sorted=false as np.sort of those indices. NaN cases and
// top_k_grad by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

AttrMap K(int64_t k, bool sorted = true) { return {{"k", k}, {"sorted", sorted}}; }

std::vector<Tensor> TopK(const Tensor& x, const AttrMap& attrs) {
  auto r = test::RunOp("top_k", {x}, attrs);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {Tensor(), Tensor()};
  EXPECT_EQ(r->size(), 2u);
  return *r;
}

class TopKOp : public ::testing::TestWithParam<DType> {};

TEST_P(TopKOp, LargestFirstTiesByLowerIndex) {
  const Tensor x = MakeTensorOf(GetParam(), {1, 3, 2, 3, 0, 5, -1, 5, 7, 2}, {2, 5});
  auto out = TopK(x, K(2));
  ExpectTensorNear(out[0], {3, 3, 7, 5}, {2, 2});
  ExpectTensorEq<int32_t>(out[1], {1, 3, 3, 0}, {2, 2});
  EXPECT_EQ(out[0].dtype(), GetParam());
  out = TopK(x, K(3));
  ExpectTensorNear(out[0], {3, 3, 2, 7, 5, 5}, {2, 3});
  ExpectTensorEq<int32_t>(out[1], {1, 3, 2, 3, 0, 2}, {2, 3});
  out = TopK(x, K(5));
  ExpectTensorNear(out[0], {3, 3, 2, 1, 0, 7, 5, 5, 2, -1}, {2, 5});
  ExpectTensorEq<int32_t>(out[1], {1, 3, 2, 0, 4, 3, 0, 2, 4, 1}, {2, 5});
  // sorted=false: the same entries, in the order they appear in the row.
  out = TopK(x, K(3, false));
  ExpectTensorNear(out[0], {3, 2, 3, 5, 5, 7}, {2, 3});
  ExpectTensorEq<int32_t>(out[1], {1, 2, 3, 0, 2, 3}, {2, 3});
  // The default k is 1.
  out = TopK(x, {});
  ExpectTensorNear(out[0], {3, 7}, {2, 1});
  ExpectTensorEq<int32_t>(out[1], {1, 3}, {2, 1});
}

TEST_P(TopKOp, RanksAndEmpty) {
  auto out = TopK(MakeTensorOf(GetParam(), {4, 1, 9}, {3}), K(1));
  ExpectTensorNear(out[0], {9}, {1});
  ExpectTensorEq<int32_t>(out[1], {2}, {1});
  // [[[0.5, -2, 4], [9, 9, 1]], [[3, 3, 3], [-1, -7, -4]]] (ints: 0.5 -> 0)
  out = TopK(MakeTensorOf(GetParam(), {0.5, -2, 4, 9, 9, 1, 3, 3, 3, -1, -7, -4}, {2, 2, 3}), K(2));
  ExpectTensorNear(out[0], {4, 0.5, 9, 9, 3, 3, -1, -4}, {2, 2, 2}, 0.51);
  ExpectTensorEq<int32_t>(out[1], {2, 0, 0, 1, 0, 1, 0, 2}, {2, 2, 2});
  out = TopK(MakeTensorOf(GetParam(), {}, {0, 4}), K(2));
  ExpectTensorNear(out[0], {}, {0, 2});
  ExpectTensorEq<int32_t>(out[1], {}, {0, 2});
  out = TopK(MakeTensorOf(GetParam(), {}, {3, 0}), K(0));
  ExpectTensorNear(out[0], {}, {3, 0});
  out = TopK(MakeTensorOf(GetParam(), {1, 2, 3, 4}, {2, 2}), K(0, false));
  ExpectTensorEq<int32_t>(out[1], {}, {2, 0});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, TopKOp,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(TopKOp, NaNRanksFirst) {
  auto out = TopK(MakeTensor<float>({1, NAN, 3, NAN}, {4}), K(3));
  ExpectTensorNear(out[0], {NAN, NAN, 3}, {3});
  ExpectTensorEq<int32_t>(out[1], {1, 3, 2}, {3});
  out = TopK(MakeTensor<double>({INFINITY, NAN, -INFINITY, 0}, {4}), K(4));
  ExpectTensorNear(out[0], {NAN, INFINITY, 0, -INFINITY}, {4});
  ExpectTensorEq<int32_t>(out[1], {1, 0, 3, 2}, {4});
  out = TopK(MakeTensor<float>({1, NAN, 3, 2}, {4}), K(2, false));
  ExpectTensorEq<int32_t>(out[1], {1, 2}, {2});
}

// Many rows, split over threads: against a stable sort of each row.
TEST(TopKOp, ParallelMatchesStableSort) {
  const int64_t rows = 64, n = 300, k = 17;
  // Values rounded to a coarse grid so rows have many ties.
  Tensor x = test::RandomF64({rows, n}, -4, 4, 9);
  for (int64_t i = 0; i < rows * n; ++i) x.data<double>()[i] = std::round(x.data<double>()[i] * 4);
  auto out = TopK(x, K(k));
  std::vector<double> want_values;
  std::vector<int32_t> want_indices;
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = x.data<double>() + r * n;
    std::vector<int32_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [row](int32_t a, int32_t b) { return row[a] > row[b]; });
    for (int64_t j = 0; j < k; ++j) {
      want_values.push_back(row[order[j]]);
      want_indices.push_back(order[j]);
    }
  }
  ExpectTensorNear(out[0], want_values, {rows, k}, 0);
  ExpectTensorEq<int32_t>(out[1], want_indices, {rows, k});
}

TEST(TopKOp, Errors) {
  const Tensor x = MakeTensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5});
  ExpectError(test::RunOp("top_k", {x}, K(6)), Code::kInvalidArgument,
              "top_k: k = 6 is larger than the last dimension 5 of input shape [2, 5]");
  ExpectError(test::RunOp("top_k", {x}, K(-1)), Code::kInvalidArgument, "top_k: k must be >= 0, got -1");
  ExpectError(test::RunOp("top_k", {MakeTensor<float>({1}, {})}, K(1)), Code::kInvalidArgument,
              "top_k: input must have rank >= 1, got a scalar");
  // The kernel repeats the checks for shapes unknown at build time.
  ExpectError(test::RunKernel("top_k", {x}, K(6)), Code::kInvalidArgument,
              "top_k: k = 6 is larger than the last dimension 5 of input shape [2, 5]");
  ExpectError(test::RunKernel("top_k", {MakeTensor<float>({1}, {})}, K(0)), Code::kInvalidArgument,
              "top_k: input must have rank >= 1, got a scalar");
  EXPECT_FALSE(test::RunOp("top_k", {MakeTensor<bool>({true}, {1})}, K(1)).ok());
  EXPECT_EQ(test::InferShapesString("top_k", {PartialShape({-1, -1})}, {DType::kF32}, K(2)), "[?, 2];[?, 2]");
  EXPECT_EQ(test::InferShapesString("top_k", {PartialShape({3, 7})}, {DType::kF32}, K(7)), "[3, 7];[3, 7]");
  EXPECT_EQ(test::InferShapesString("top_k", {PartialShape()}, {DType::kF32}, K(2)), "<unknown>;<unknown>");
  EXPECT_EQ(test::InferShapesString("top_k", {PartialShape({-1, 3})}, {DType::kF32}, K(4)),
            "top_k: k = 4 is larger than the last dimension 3 of input shape [?, 3]");
  EXPECT_EQ(test::InferShapesString("top_k", {PartialShape()}, {DType::kF32}, K(-2)),
            "top_k: k must be >= 0, got -2");
}

// By hand: dvalues go to their rows' index positions, zeros elsewhere.
TEST(TopKGradOp, ScattersToIndices) {
  const Tensor dvalues = MakeTensor<double>({10, 20, 30, 40}, {2, 2});
  const Tensor indices = MakeTensor<int32_t>({1, 3, 3, 0}, {2, 2});
  const Tensor input = test::RandomF64({2, 5});
  ExpectTensorNear(test::Eval("top_k_grad", {dvalues, indices, input}), {0, 10, 0, 20, 0, 40, 0, 0, 30, 0}, {2, 5});
  ExpectTensorNear(test::Eval("top_k_grad", {MakeTensor<float>({}, {2, 0}), MakeTensor<int32_t>({}, {2, 0}),
                                             MakeTensor<float>({1, 2, 3, 4}, {2, 2})}),
                   {0, 0, 0, 0}, {2, 2});
  ExpectError(test::RunOp1("top_k_grad", {dvalues, MakeTensor<int32_t>({1, 5, 3, 0}, {2, 2}), input}),
              Code::kInvalidArgument, "top_k_grad: index 5 at flat position 1 of indices is out of range [0, 5)");
  ExpectError(test::RunOp1("top_k_grad", {dvalues, MakeTensor<int32_t>({1, 3}, {1, 2}), input}),
              Code::kInvalidArgument, "top_k_grad: dvalues have shape [2, 2] but indices [1, 2]");
  ExpectError(test::RunOp1("top_k_grad", {dvalues, indices, test::RandomF64({3, 5})}), Code::kInvalidArgument,
              "top_k_grad: dvalues of shape [2, 2] do not match the rows of input shape [3, 5]");
}

TEST(TopKOp, Gradient) {
  // Distinct values (no ties), so the selection is stable under the step.
  const Tensor x = test::RandomF64({3, 6}, -2, 2, 11);
  for (int64_t k : {0, 1, 3, 6}) {
    SCOPED_TRACE(k);
    EXPECT_GRADIENT_OK("top_k", {x}, K(k));
    EXPECT_GRADIENT_OK("top_k", {x}, K(k, false));
  }
}

// The gradient reaches only the selected entries (TensorFlow's _TopKGrad),
// by hand: d sum(top_k(x, 2).values) = 1 at the two largest.
TEST(TopKOp, GradientOnlyAtSelected) {
  auto r = test::SymbolicGradients("top_k", {MakeTensor<double>({0.5, 3, -1, 2}, {4})}, K(2),
                                   MakeTensor<double>({1, 1}, {2}), {{}, test::FeedShapes::kStatic});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorNear((*r)[0], {0, 1, 0, 1}, {4});
}

}  // namespace
}  // namespace tfg
