// Expected values computed with NumPy in float64.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg::apply_momentum_test {
namespace {

using test::MakeTensor;

const test::VarBinding kVars = {{"var", "W"}, {"accum", "W/accum"}};

template <typename T>
void Step(test::ApplyGraph& g, std::vector<T> grad, AttrMap attrs = {}) {
  const TensorShape s({3});
  Status st = g.Apply("apply_momentum", kVars,
                      {Tensor::Scalar<T>(T(0.1)), MakeTensor<T>(grad, s), Tensor::Scalar<T>(T(0.9))},
                      std::move(attrs));
  ASSERT_TRUE(st.ok()) << st.ToString();
}

TEST(ApplyMomentumTest, ThreeSteps) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2, 3}));
  g.Set("W/accum", Tensor::Vector<float>({0.1f, -0.2f, 0}));
  const TensorShape s({3});
  Step<float>(g, {1, -1, 0.5f});
  test::ExpectTensorNear(g.Value("W"), {0.891, 2.118, 2.95}, s, 1e-6);
  test::ExpectTensorNear(g.Value("W/accum"), {1.09, -1.18, 0.5}, s, 1e-6);
  Step<float>(g, {0.5f, 0.5f, -2});
  test::ExpectTensorNear(g.Value("W"), {0.7429, 2.1742, 3.105}, s, 1e-6);
  test::ExpectTensorNear(g.Value("W/accum"), {1.481, -0.562, -1.55}, s, 1e-6);
  Step<float>(g, {-1, 2, 1});
  test::ExpectTensorNear(g.Value("W"), {0.70961, 2.02478, 3.1445}, s, 1e-6);
  test::ExpectTensorNear(g.Value("W/accum"), {0.3329, 1.4942, -0.395}, s, 1e-6);
}

TEST(ApplyMomentumTest, NesterovThreeStepsInDouble) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<double>({1, 2, 3}));
  g.Set("W/accum", Tensor::Vector<double>({0.1, -0.2, 0}));
  const TensorShape s({3});
  const AttrMap nesterov = {{"use_nesterov", true}};
  Step<double>(g, {1, -1, 0.5}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.8019, 2.2062, 2.905}, s, 1e-12);
  test::ExpectTensorNear(g.Value("W/accum"), {1.09, -1.18, 0.5}, s, 1e-12);
  Step<double>(g, {0.5, 0.5, -2}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.61861, 2.20678, 3.2445}, s, 1e-12);
  Step<double>(g, {-1, 2, 1}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.688649, 1.872302, 3.18005}, s, 1e-12);
  test::ExpectTensorNear(g.Value("W/accum"), {0.3329, 1.4942, -0.395}, s, 1e-12);
}

// Only the named rows move; rows named twice get the summed gradient.
TEST(SparseApplyMomentumTest, TouchedRowsOnlyWithRepeatedIndices) {
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "classic");
    test::ApplyGraph g;
    const TensorShape s({3, 2});
    g.Set("E", MakeTensor<float>({1, 2, 3, 4, 5, 6}, s));
    g.Set("E/accum", MakeTensor<float>({0.5f, 0.5f, 1, 1, 0, 0}, s));
    const test::VarBinding vars = {{"var", "E"}, {"accum", "E/accum"}};
    const AttrMap attrs = {{"use_nesterov", nesterov}};
    ASSERT_TRUE(g.Apply("sparse_apply_momentum", vars,
                        {Tensor::Scalar<float>(0.1f), MakeTensor<float>({1, -1, 2, 2, 0.5f, 0.5f}, TensorShape({3, 2})),
                         Tensor::Vector<int64_t>({2, 0, 2}), Tensor::Scalar<float>(0.9f)},
                        attrs).ok());
    if (nesterov) {
      test::ExpectTensorNear(g.Value("E"), {0.5795, 1.5795, 3, 4, 4.715, 6.095}, s, 1e-6);
    } else {
      test::ExpectTensorNear(g.Value("E"), {0.755, 1.755, 3, 4, 4.85, 6.05}, s, 1e-6);
    }
    test::ExpectTensorNear(g.Value("E/accum"), {2.45, 2.45, 1, 1, 1.5, -0.5}, s, 1e-6);
    ASSERT_TRUE(g.Apply("sparse_apply_momentum", vars,
                        {Tensor::Scalar<float>(0.1f), MakeTensor<float>({-1, 3}, TensorShape({1, 2})),
                         Tensor::Vector<int64_t>({1}), Tensor::Scalar<float>(0.9f)},
                        attrs).ok());
    if (nesterov) {
      test::ExpectTensorNear(g.Value("E"), {0.5795, 1.5795, 3.109, 3.349, 4.715, 6.095}, s, 1e-6);
    } else {
      test::ExpectTensorNear(g.Value("E"), {0.755, 1.755, 3.01, 3.61, 4.85, 6.05}, s, 1e-6);
    }
    test::ExpectTensorNear(g.Value("E/accum"), {2.45, 2.45, -0.1, 3.9, 1.5, -0.5}, s, 1e-6);
  }
}

}  // namespace
}  // namespace tfg::apply_momentum_test
