// sparse_softmax_cross_entropy: values from NumPy (float64, log-sum-exp with
// the row maximum subtracted, minus the labelled logit).
#include <gtest/gtest.h>

#include <string>

#include "ops/nn/cross_entropy.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::sparse_softmax_cross_entropy_test {
namespace {

using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kLogits = {1, 2, 3, 4, 1000, 1001, 999, 1000.5, -1000, 0, 1000, 3, 0.5, 0.5, 0.5, 0.5};

class SparseSoftmaxCrossEntropy : public ::testing::TestWithParam<DType> {};

TEST_P(SparseSoftmaxCrossEntropy, LossAndGradientWithHugeLogits) {
  const DType dt = GetParam();
  Tensor logits = MakeTensorOf(dt, kLogits, {4, 4});
  for (Tensor labels : {MakeTensor<int32_t>({3, 1, 0, 2}, {4}), MakeTensor<int64_t>({3, 1, 0, 2}, {4})}) {
    Tensor loss = test::Eval("sparse_softmax_cross_entropy", {logits, labels});
    EXPECT_EQ(loss.dtype(), dt);
    ExpectTensorNear(loss, {0.4401896985611957, 0.7465672691737382, 2000.0, 1.3862943611198906}, {4}, test::Tol(dt));
    Tensor dloss = MakeTensorOf(dt, {1, 2, -1, 0.5}, {4});
    ExpectTensorNear(test::Eval("sparse_softmax_cross_entropy_grad", {logits, labels, dloss}),
                     {0.032058603280084974, 0.08714431874203253, 0.23688281808991005, -0.356085740112028,
                      0.348742975280677, -1.0520183074917937, 0.12829537085872159, 0.5749799613525012, 1.0, 0.0, -1.0,
                      0.0, 0.125, 0.125, -0.375, 0.125},
                     {4, 4}, test::Tol(dt));
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SparseSoftmaxCrossEntropy, ::testing::Values(DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(SparseSoftmaxCrossEntropy, HalfPrecision) {
  // log(1 + e) = 1.3132616875182228, log(2) = 0.6931471805599453.
  Tensor loss = test::Eval("sparse_softmax_cross_entropy",
                           {test::MakeHalf({0, 1, 5, 5}, {2, 2}), MakeTensor<int32_t>({0, 1}, {2})});
  EXPECT_EQ(loss.dtype(), DType::kF16);
  ExpectTensorNear(loss, {1.3132616875182228, 0.6931471805599453}, {2}, 2e-3);
}

TEST(SparseSoftmaxCrossEntropy, LabelOutOfRangeIsAnError) {
  Tensor logits = MakeTensorOf(DType::kF32, kLogits, {4, 4});
  test::ExpectError(test::RunOp1("sparse_softmax_cross_entropy", {logits, MakeTensor<int32_t>({3, 1, 4, 2}, {4})}),
                    Code::kInvalidArgument,
                    "sparse_softmax_cross_entropy: label 4 at position [2] is outside the valid range [0, 4) of the "
                    "4 classes");
  test::ExpectError(test::RunOp1("sparse_softmax_cross_entropy", {logits, MakeTensor<int64_t>({-1, 1, 0, 2}, {4})}),
                    Code::kInvalidArgument, "label -1 at position [0] is outside the valid range [0, 4)");
  Tensor dloss = MakeTensorOf(DType::kF32, {1, 1, 1, 1}, {4});
  test::ExpectError(
      test::RunOp1("sparse_softmax_cross_entropy_grad", {logits, MakeTensor<int64_t>({0, 1, 0, 9}, {4}), dloss}),
      Code::kInvalidArgument, "label 9 at position [3]");
  Tensor logits3 = MakeTensorOf(DType::kF64, std::vector<double>(12, 0.0), {2, 2, 3});
  test::ExpectError(test::RunOp1("sparse_softmax_cross_entropy", {logits3, MakeTensor<int32_t>({0, 1, 3, 2}, {2, 2})}),
                    Code::kInvalidArgument, "label 3 at position [1, 0] is outside the valid range [0, 3)");
}

// Found by op_fuzz: no rows, but a class count the shapes allow only
// because a batch dim is 0; the work estimate 30 * classes overflowed.
TEST(SparseSoftmaxCrossEntropy, NoRowsOfHugeClassCounts) {
  const int64_t classes = 2076329896318010771;
  Tensor logits = MakeTensorOf(DType::kF64, {}, {0, 3, classes});
  Tensor labels = MakeTensor<int32_t>({}, {0, 3});
  auto loss = test::RunOp1("sparse_softmax_cross_entropy", {logits, labels});
  ASSERT_TRUE(loss.ok()) << loss.status().ToString();
  EXPECT_EQ(loss->shape(), TensorShape({0, 3}));
  auto grad = test::RunOp1("sparse_softmax_cross_entropy_grad", {logits, labels, MakeTensorOf(DType::kF64, {}, {0, 3})});
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ(grad->shape(), TensorShape({0, 3, classes}));
}

TEST(SparseSoftmaxCrossEntropy, ShapesAndErrors) {
  EXPECT_EQ(test::InferShapesString("sparse_softmax_cross_entropy", {PartialShape({-1, 10}), PartialShape({-1})},
                                    {DType::kF32, DType::kI32}),
            "[?]");
  EXPECT_EQ(test::InferShapesString("sparse_softmax_cross_entropy", {PartialShape({4, 10}), PartialShape({4, 1})},
                                    {DType::kF32, DType::kI64}),
            "sparse_softmax_cross_entropy: labels must have shape logits.shape[:-1] = [4]: logits [4, 10], labels "
            "[4, 1]");
  EXPECT_FALSE(
      test::RunOp1("sparse_softmax_cross_entropy", {MakeTensor<float>({1, 2}, {1, 2}), MakeTensor<float>({0}, {1})})
          .ok());
  test::ExpectError(test::RunKernel("sparse_softmax_cross_entropy",
                                    {MakeTensor<float>({}, {3, 2}), MakeTensor<int32_t>({0, 0}, {2})}),
                    Code::kInvalidArgument, "labels must have shape logits.shape[:-1]: logits [3, 2], labels [2]");
}

// The checks the CPU and GPU kernels share (ops/nn/cross_entropy.h).
TEST(SparseCrossEntropyRows, RowsClassesAndErrors) {
  const std::string op = "sparse_softmax_cross_entropy";
  auto r = nn::SparseCrossEntropyRows(op, {2, 3, 5}, {2, 3});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(std::make_tuple(r->rows, r->classes), std::make_tuple(6, 5));
  EXPECT_EQ(r->loss, TensorShape({2, 3}));
  EXPECT_EQ(nn::SparseCrossEntropyRows(op, {2, 3, 5}, {2, 3, 5}).status().message(),
            "sparse_softmax_cross_entropy: labels must have shape logits.shape[:-1]: logits [2, 3, 5], labels "
            "[2, 3, 5]");
  EXPECT_EQ(nn::SparseCrossEntropyRows(op, {}, {}).status().message(),
            "sparse_softmax_cross_entropy: logits must have rank >= 1 [..., classes], got a scalar");
  EXPECT_TRUE(nn::CheckSparseCrossEntropyDloss("sparse_softmax_cross_entropy_grad", {2, 3}, {2, 3}).ok());
  EXPECT_EQ(nn::CheckSparseCrossEntropyDloss("sparse_softmax_cross_entropy_grad", {2, 3}, {6}).message(),
            "sparse_softmax_cross_entropy_grad: dloss has shape [6] but labels have shape [2, 3]");
}

TEST(SparseSoftmaxCrossEntropyGradient, FiniteDifferences) {
  EXPECT_GRADIENT_OK("sparse_softmax_cross_entropy",
                     {test::RandomF64({4, 5}, -3, 3, 61), MakeTensor<int32_t>({4, 0, 2, 2}, {4})});
  EXPECT_GRADIENT_OK("sparse_softmax_cross_entropy",
                     {test::RandomF64({2, 2, 3}, -3, 3, 62), MakeTensor<int64_t>({1, 0, 2, 2}, {2, 2})});
}

}  // namespace
}  // namespace tfg::sparse_softmax_cross_entropy_test
