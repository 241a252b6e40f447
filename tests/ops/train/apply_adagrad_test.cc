// Expected values computed with NumPy in float64 (TF 1.x's Adagrad formula).
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg::apply_adagrad_test {
namespace {

using test::MakeTensor;

const test::VarBinding kVars = {{"var", "W"}, {"accum", "W/accum"}};

TEST(ApplyAdagradTest, ThreeSteps) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2, 3}));
  g.Set("W/accum", Tensor::Vector<float>({0.1f, 0.1f, 0.1f}));
  const TensorShape s({3});
  auto step = [&](std::vector<float> grad) {
    return g.Apply("apply_adagrad", kVars, {Tensor::Scalar<float>(0.5f), Tensor::Vector<float>(grad)});
  };
  ASSERT_TRUE(step({1, -2, 0.5f}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.5232687053772038, 2.493864798324795, 2.5774228726357418}, s, 1e-6);
  test::ExpectTensorNear(g.Value("W/accum"), {1.1, 4.1, 0.35}, s, 1e-6);
  ASSERT_TRUE(step({0.5f, 0.5f, 0.5f}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.30810296392123626, 2.3739989729534487, 2.2546742604517904}, s, 1e-6);
  ASSERT_TRUE(step({-1, 0, 2}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.6342670004479574, 2.3739989729534487, 1.7884218563316336}, s, 1e-6);
  test::ExpectTensorNear(g.Value("W/accum"), {2.35, 4.35, 4.6}, s, 1e-6);
}

TEST(ApplyAdagradTest, WithoutUpdatingSlots) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<double>({1, 2, 3}));
  g.Set("W/accum", Tensor::Vector<double>({4, 1, 0.25}));
  const AttrMap attrs = {{"update_slots", false}};
  ASSERT_TRUE(g.Apply("apply_adagrad", kVars, {Tensor::Scalar<double>(0.5), Tensor::Vector<double>({1, -2, 0.5})},
                      attrs).ok());
  test::ExpectTensorEq<double>(g.Value("W"), {0.75, 3.0, 2.5}, TensorShape({3}));
  ASSERT_TRUE(g.Apply("apply_adagrad", kVars, {Tensor::Scalar<double>(0.5), Tensor::Vector<double>({0.5, 0.5, 0.5})},
                      attrs).ok());
  test::ExpectTensorEq<double>(g.Value("W"), {0.625, 2.75, 2.0}, TensorShape({3}));
  test::ExpectTensorEq<double>(g.Value("W/accum"), {4, 1, 0.25}, TensorShape({3}));
}

TEST(SparseApplyAdagradTest, TouchedRowsOnlyWithRepeatedIndices) {
  test::ApplyGraph g;
  const TensorShape s({3, 2});
  g.Set("E", MakeTensor<double>({1, 2, 3, 4, 5, 6}, s));
  g.Set("E/accum", MakeTensor<double>({0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, s));
  const test::VarBinding vars = {{"var", "E"}, {"accum", "E/accum"}};
  ASSERT_TRUE(g.Apply("sparse_apply_adagrad", vars,
                      {Tensor::Scalar<double>(0.5), MakeTensor<double>({1, 2, 0.5, -1}, TensorShape({2, 2})),
                       Tensor::Vector<int32_t>({1, 1})}).ok());
  test::ExpectTensorNear(g.Value("E"), {1, 2, 2.5107539452099186, 3.523268705377204, 5, 6}, s, 1e-12);
  test::ExpectTensorNear(g.Value("E/accum"), {0.1, 0.1, 2.35, 1.1, 0.1, 0.1}, s, 1e-12);
  ASSERT_TRUE(g.Apply("sparse_apply_adagrad", vars,
                      {Tensor::Scalar<double>(0.5), MakeTensor<double>({3, 0, 1, 1}, TensorShape({2, 2})),
                       Tensor::Vector<int32_t>({0, 2})}).ok());
  test::ExpectTensorNear(g.Value("E"),
                         {0.5027548419011532, 2.0, 2.5107539452099186, 3.523268705377204, 4.523268705377204,
                          5.523268705377204},
                         s, 1e-12);
  test::ExpectTensorNear(g.Value("E/accum"), {9.1, 0.1, 2.35, 1.1, 1.1, 1.1}, s, 1e-12);
}

}  // namespace
}  // namespace tfg::apply_adagrad_test
