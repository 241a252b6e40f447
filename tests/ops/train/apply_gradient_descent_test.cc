// Expected values computed with NumPy in float64.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg {
namespace {

using test::MakeTensor;

TEST(ApplyGradientDescentTest, ThreeStepsWithALearningRateSchedule) {
  test::ApplyGraph g;
  g.Set("W", MakeTensor<float>({1, -2, 3, 0.5f}, TensorShape({2, 2})));
  const test::VarBinding vars = {{"var", "W"}};
  const TensorShape s({2, 2});
  ASSERT_TRUE(g.Apply("apply_gradient_descent", vars,
                      {Tensor::Scalar<float>(0.1f), MakeTensor<float>({0.5f, -1, 2, 4}, s)}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.95, -1.9, 2.8, 0.1}, s, 1e-6);
  ASSERT_TRUE(g.Apply("apply_gradient_descent", vars,
                      {Tensor::Scalar<float>(0.05f), MakeTensor<float>({1, 1, -1, 0}, s)}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.9, -1.95, 2.85, 0.1}, s, 1e-6);
  ASSERT_TRUE(g.Apply("apply_gradient_descent", vars,
                      {Tensor::Scalar<float>(0.2f), MakeTensor<float>({-2, 0.5f, 0.25f, 1}, s)}).ok());
  test::ExpectTensorNear(g.Value("W"), {1.3, -2.05, 2.8, -0.1}, s, 1e-6);
}

TEST(ApplyGradientDescentTest, DoubleAndScalarVariable) {
  test::ApplyGraph g;
  g.Set("b", Tensor::Scalar<double>(2.0));
  ASSERT_TRUE(g.Apply("apply_gradient_descent", {{"var", "b"}},
                      {Tensor::Scalar<double>(0.25), Tensor::Scalar<double>(-3.0)}).ok());
  test::ExpectTensorEq<double>(g.Value("b"), {2.75}, TensorShape());
}

TEST(ApplyGradientDescentTest, HalfPrecision) {
  test::ApplyGraph g;
  g.Set("H", test::MakeHalf({1.5f, -2.0f}, TensorShape({2})));
  ASSERT_TRUE(g.Apply("apply_gradient_descent", {{"var", "H"}},
                      {test::MakeHalf({0.5f}, TensorShape()), test::MakeHalf({1.0f, -4.0f}, TensorShape({2}))}).ok());
  test::ExpectTensorNear(g.Value("H"), {1.0, 0.0}, TensorShape({2}), 0);
}

// A large variable is updated in shards; every element must get its update.
TEST(ApplyGradientDescentTest, LargeVariableEveryElementUpdated) {
  const int64_t n = 300001;
  std::vector<float> w(n), grad(n);
  for (int64_t i = 0; i < n; ++i) {
    w[i] = static_cast<float>(i % 1000);
    grad[i] = static_cast<float>(i % 7);
  }
  test::ApplyGraph g;
  g.Set("W", MakeTensor<float>(w, TensorShape({n})));
  ASSERT_TRUE(g.Apply("apply_gradient_descent", {{"var", "W"}},
                      {Tensor::Scalar<float>(0.5f), MakeTensor<float>(grad, TensorShape({n}))}).ok());
  Tensor out = g.Value("W");
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(out.data<float>()[i], static_cast<float>(i % 1000) - 0.5f * static_cast<float>(i % 7)) << i;
  }
}

TEST(SparseApplyGradientDescentTest, RepeatedIndicesAllApply) {
  test::ApplyGraph g;
  g.Set("E", MakeTensor<float>({0, 1, 2, 3, 4, 5, 6, 7}, TensorShape({4, 2})));
  const test::VarBinding vars = {{"var", "E"}};
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", vars,
                      {Tensor::Scalar<float>(0.5f), MakeTensor<float>({1, 2, 3, 4, 0.5f, -1}, TensorShape({3, 2})),
                       Tensor::Vector<int32_t>({3, 0, 3})}).ok());
  test::ExpectTensorNear(g.Value("E"), {-1.5, -1, 2, 3, 4, 5, 5.25, 6.5}, TensorShape({4, 2}), 1e-6);
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", vars,
                      {Tensor::Scalar<float>(0.25f), MakeTensor<float>({1, 1, 2, 2, -4, 8}, TensorShape({3, 2})),
                       Tensor::Vector<int32_t>({1, 1, 1})}).ok());
  test::ExpectTensorNear(g.Value("E"), {-1.5, -1, 2.25, 0.25, 4, 5, 5.25, 6.5}, TensorShape({4, 2}), 1e-6);
}

TEST(SparseApplyGradientDescentTest, MatrixOfIndices) {
  test::ApplyGraph g;
  g.Set("E", MakeTensor<double>({1, 1, 1, 1, 1, 1}, TensorShape({3, 2})));
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", {{"var", "E"}},
                      {Tensor::Scalar<double>(1.0),
                       MakeTensor<double>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2})),
                       MakeTensor<int64_t>({0, 1, 1, 2}, TensorShape({2, 2}))}).ok());
  test::ExpectTensorEq<double>(g.Value("E"), {0, -1, -7, -9, -6, -7}, TensorShape({3, 2}));
}

TEST(SparseApplyGradientDescentTest, EmptyIndicesChangeNothing) {
  test::ApplyGraph g;
  g.Set("E", MakeTensor<float>({1, 2}, TensorShape({2, 1})));
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", {{"var", "E"}},
                      {Tensor::Scalar<float>(1.0f), MakeTensor<float>({}, TensorShape({0, 1})),
                       MakeTensor<int32_t>({}, TensorShape({0}))}).ok());
  test::ExpectTensorEq<float>(g.Value("E"), {1, 2}, TensorShape({2, 1}));
}

// f16 rows named twice are summed in f32 before the update.
TEST(SparseApplyGradientDescentTest, HalfPrecisionWithRepeatedIndices) {
  test::ApplyGraph g;
  g.Set("H", test::MakeHalf({1, 2}, TensorShape({2, 1})));
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", {{"var", "H"}},
                      {test::MakeHalf({0.5f}, TensorShape()), test::MakeHalf({1, 1, 2}, TensorShape({3, 1})),
                       Tensor::Vector<int32_t>({0, 0, 1})}).ok());
  test::ExpectTensorNear(g.Value("H"), {0.0, 1.0}, TensorShape({2, 1}), 0);
}

// Many rows, split across threads, with repeats: against a dense reference
// (var -= lr * the scatter-sum of the gradient rows).
TEST(SparseApplyGradientDescentTest, ManyRowsMatchTheDenseReference) {
  const int64_t rows = 5000, width = 8, n = 12000;
  std::vector<double> var(rows * width), grad(n * width);
  std::vector<int64_t> idx(n);
  for (int64_t i = 0; i < rows * width; ++i) var[i] = static_cast<double>(i % 13);
  for (int64_t i = 0; i < n; ++i) idx[i] = (i * 7919) % rows;
  for (int64_t i = 0; i < n * width; ++i) grad[i] = static_cast<double>(i % 5) - 2;
  std::vector<double> expected = var;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < width; ++j) expected[idx[i] * width + j] -= 0.5 * grad[i * width + j];
  }
  test::ApplyGraph g;
  g.Set("E", MakeTensor<double>(var, TensorShape({rows, width})));
  ASSERT_TRUE(g.Apply("sparse_apply_gradient_descent", {{"var", "E"}},
                      {Tensor::Scalar<double>(0.5), MakeTensor<double>(grad, TensorShape({n, width})),
                       Tensor::Vector<int64_t>(idx)}).ok());
  test::ExpectTensorNear(g.Value("E"), expected, TensorShape({rows, width}), 1e-12);
}

}  // namespace
}  // namespace tfg
