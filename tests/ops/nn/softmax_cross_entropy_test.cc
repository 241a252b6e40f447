// softmax_cross_entropy_with_logits: values from NumPy (float64, with the
// row maximum subtracted before exp).
#include <gtest/gtest.h>

#include <string>

#include "ops/nn/cross_entropy.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::softmax_cross_entropy_test {
namespace {

using test::ExpectTensorNear;
using test::MakeTensorOf;

// Rows 2 and 3 would overflow exp() without the max subtracted.
const std::vector<double> kLogits = {1, 2, 3, 4, 1000, 1001, 999, 1000.5, -1000, 0, 1000, 3, 0.5, 0.5, 0.5, 0.5};
const std::vector<double> kLabels = {0, 0, 0, 1, 0.25, 0.25, 0.25, 0.25, 0, 1, 0, 0, 0.1, 0.2, 0.3, 0.4};

class SoftmaxCrossEntropy : public ::testing::TestWithParam<DType> {};

TEST_P(SoftmaxCrossEntropy, LossAndGradientWithHugeLogits) {
  const DType dt = GetParam();
  if (dt == DType::kF16) GTEST_SKIP() << "1000 +- 1 is not representable in f16";
  Tensor logits = MakeTensorOf(dt, kLogits, {4, 4});
  Tensor labels = MakeTensorOf(dt, kLabels, {4, 4});
  Tensor loss = test::Eval("softmax_cross_entropy_with_logits", {logits, labels});
  EXPECT_EQ(loss.dtype(), dt);
  ExpectTensorNear(loss, {0.4401896985611957, 1.6215672691737382, 1000.0, 1.3862943611198904}, {4}, test::Tol(dt));
  Tensor dloss = MakeTensorOf(dt, {1, 2, -1, 0.5}, {4});
  ExpectTensorNear(test::Eval("softmax_cross_entropy_grad", {logits, labels, dloss}),
                   {0.032058603280084974, 0.08714431874203253, 0.23688281808991005, -0.356085740112028,
                    -0.151257024719323, 0.4479816925082063, -0.37170462914127844, 0.07497996135250118, 0.0, 1.0, -1.0,
                    0.0, 0.075, 0.024999999999999994, -0.024999999999999994, -0.07500000000000001},
                   {4, 4}, test::Tol(dt));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SoftmaxCrossEntropy, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(SoftmaxCrossEntropy, HalfPrecisionAndHigherRank) {
  // [2, 1, 2] logits: two rows of two classes; log(1 + e) = 1.3132616875182228.
  Tensor logits = test::MakeHalf({0, 1, 5, 5}, {2, 1, 2});
  Tensor labels = test::MakeHalf({1, 0, 0.5, 0.5}, {2, 1, 2});
  Tensor loss = test::Eval("softmax_cross_entropy_with_logits", {logits, labels});
  EXPECT_EQ(loss.dtype(), DType::kF16);
  ExpectTensorNear(loss, {1.3132616875182228, 0.6931471805599453}, {2, 1}, 2e-3);
}

TEST(SoftmaxCrossEntropy, ZeroLabelIgnoresInfiniteLogit) {
  Tensor logits = test::MakeTensor<double>({-INFINITY, 0, 0}, {1, 3});
  Tensor labels = test::MakeTensor<double>({0, 0.5, 0.5}, {1, 3});
  ExpectTensorNear(test::Eval("softmax_cross_entropy_with_logits", {logits, labels}), {0.6931471805599453}, {1});
}

// Found by op_fuzz: no rows of 2**62 classes (the empty batch allows it);
// the work estimate 30 * classes overflowed.
TEST(SoftmaxCrossEntropy, NoRowsOfHugeClassCounts) {
  const int64_t classes = int64_t{1} << 62;
  const Tensor logits = test::MakeTensorOf(DType::kF16, {}, {0, classes});
  auto loss = test::RunOp1("softmax_cross_entropy_with_logits", {logits, logits});
  ASSERT_TRUE(loss.ok()) << loss.status().ToString();
  EXPECT_EQ(loss->shape(), TensorShape({0}));
  auto grad = test::RunOp1("softmax_cross_entropy_grad", {logits, logits, test::MakeTensorOf(DType::kF16, {}, {0})});
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  EXPECT_EQ(grad->shape(), TensorShape({0, classes}));
}

TEST(SoftmaxCrossEntropy, ShapesAndErrors) {
  const std::vector<DType> f32 = {DType::kF32, DType::kF32};
  const std::string op = "softmax_cross_entropy_with_logits";
  EXPECT_EQ(test::InferShapesString(op, {PartialShape({-1, 10}), PartialShape({32, -1})}, f32), "[32]");
  EXPECT_EQ(test::InferShapesString(op, {PartialShape({4, 10}), PartialShape({4, 9})}, f32),
            "softmax_cross_entropy_with_logits: labels must have the shape of logits: logits [4, 10], labels [4, 9]");
  EXPECT_EQ(test::InferShapesString(op, {PartialShape({}), PartialShape({})}, f32),
            "softmax_cross_entropy_with_logits: logits must have rank >= 1 [..., classes], got a scalar");
  // Found by op_fuzz: logits of unknown rank take a scalar label's rank;
  // the loss shape dropped the last dim of an empty list.
  for (const std::string& grad_or_loss : {op, std::string("softmax_cross_entropy_grad")}) {
    std::vector<PartialShape> inputs = {PartialShape::Unknown(), PartialShape({})};
    std::vector<DType> dtypes = f32;
    if (grad_or_loss != op) {
      inputs.push_back(PartialShape::Unknown());
      dtypes.push_back(DType::kF32);
    }
    EXPECT_EQ(test::InferShapesString(grad_or_loss, inputs, dtypes),
              grad_or_loss + ": logits must have rank >= 1 [..., classes], got a scalar");
  }
  test::ExpectError(test::RunKernel("softmax_cross_entropy_with_logits",
                                    {test::MakeTensor<float>({}, {2, 3}), test::MakeTensor<float>({}, {3, 2})}),
                    Code::kInvalidArgument, "labels must have the shape of logits: logits [2, 3], labels [3, 2]");
  // Zero classes: nothing to lose.
  ExpectTensorNear(test::Eval("softmax_cross_entropy_with_logits",
                              {test::MakeTensor<float>({}, {2, 0}), test::MakeTensor<float>({}, {2, 0})}),
                   {0, 0}, {2});
}

// The checks the CPU and GPU kernels share (ops/nn/cross_entropy.h).
TEST(DenseCrossEntropyRows, RowsClassesAndErrors) {
  const std::string op = "softmax_cross_entropy_with_logits";
  auto r = nn::DenseCrossEntropyRows(op, {2, 3, 5}, {2, 3, 5});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(std::make_tuple(r->rows, r->classes), std::make_tuple(6, 5));
  EXPECT_EQ(r->loss, TensorShape({2, 3}));
  EXPECT_EQ(nn::DenseCrossEntropyRows(op, {2, 3, 5}, {2, 3, 4}).status().message(),
            "softmax_cross_entropy_with_logits: labels must have the shape of logits: logits [2, 3, 5], labels "
            "[2, 3, 4]");
  EXPECT_EQ(nn::DenseCrossEntropyRows(op, {}, {}).status().message(),
            "softmax_cross_entropy_with_logits: logits must have rank >= 1 [..., classes], got a scalar");
  EXPECT_TRUE(nn::CheckDenseCrossEntropyDloss("softmax_cross_entropy_grad", {2, 3, 5}, {2, 3}).ok());
  EXPECT_EQ(nn::CheckDenseCrossEntropyDloss("softmax_cross_entropy_grad", {2, 3, 5}, {6}).message(),
            "softmax_cross_entropy_grad: dloss has shape [6] but logits [2, 3, 5] give 6 losses");
}

TEST(SoftmaxCrossEntropyGradient, FiniteDifferences) {
  // Labels that are not distributions too: the gradient is exact for them.
  EXPECT_GRADIENT_OK("softmax_cross_entropy_with_logits",
                     {test::RandomF64({3, 5}, -3, 3, 51), test::RandomF64({3, 5}, 0, 1, 52)});
}

TEST(SoftmaxCrossEntropyGradient, SecondDerivativeIsAClearError) {
  auto r = test::CheckGradient(
      "softmax_cross_entropy_grad",
      {test::RandomF64({2, 3}, -1, 1, 53), test::RandomF64({2, 3}, 0, 1, 54), test::RandomF64({2}, -1, 1, 55)});
  test::ExpectError(r, Code::kUnimplemented,
                    "softmax_cross_entropy_grad: second derivatives through this op are not supported yet");
}

}  // namespace
}  // namespace tfg::softmax_cross_entropy_test
