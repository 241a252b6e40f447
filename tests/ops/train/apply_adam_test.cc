// Expected values computed with NumPy in float64 (TF 1.x's Adam formula).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg::apply_adam_test {
namespace {

using test::MakeTensor;

const test::VarBinding kVars = {{"var", "W"}, {"m", "W/m"}, {"v", "W/v"}};

// Step t (from 1) with lr 0.01, beta1 0.9, beta2 0.999, epsilon 1e-8.
template <typename T>
void Step(test::ApplyGraph& g, int t, std::vector<T> grad, AttrMap attrs = {}) {
  std::vector<Tensor> in = {Tensor::Scalar<T>(static_cast<T>(std::pow(0.9, t))),
                            Tensor::Scalar<T>(static_cast<T>(std::pow(0.999, t))),
                            Tensor::Scalar<T>(T(0.01)),
                            Tensor::Scalar<T>(T(0.9)),
                            Tensor::Scalar<T>(T(0.999)),
                            Tensor::Scalar<T>(T(1e-8)),
                            MakeTensor<T>(grad, TensorShape({4}))};
  Status s = g.Apply("apply_adam", kVars, in, std::move(attrs));
  ASSERT_TRUE(s.ok()) << s.ToString();
}

template <typename T>
void InitSlots(test::ApplyGraph& g) {
  g.Set("W", Tensor::Vector<T>({1, -1, 0.5, 2}));
  g.Set("W/m", Tensor::Vector<T>({0, 0, 0, 0}));
  g.Set("W/v", Tensor::Vector<T>({0, 0, 0, 0}));
}

// The reference rounds hyper-parameters and gradients to f32 first, as the
// kernel sees them (1 - 0.999f alone differs from 0.001 by 1.3e-5 relative).
TEST(ApplyAdamTest, ThreeSteps) {
  test::ApplyGraph g;
  InitSlots<float>(g);
  const TensorShape s({4});
  Step<float>(g, 1, {0.1f, -0.2f, 0.3f, 0});
  test::ExpectTensorNear(g.Value("W"), {0.9900000318463962, -0.9900000160349818, 0.49000001076449895, 2.0}, s, 1e-7);
  test::ExpectTensorNear(g.Value("W/m"), {0.010000002533197438, -0.020000005066394877, 0.030000008344650553, 0}, s,
                         1e-8);
  test::ExpectTensorNear(g.Value("W/v"), {9.999871551986674e-06, 3.9999486207946694e-05, 8.9998848438171e-05, 0}, s,
                         1e-11);
  Step<float>(g, 2, {1, -1, 0.5f, 2});
  test::ExpectTensorNear(g.Value("W"), {0.9819290615285182, -0.9813894543939183, 0.4801719814810704, 1.9925585450383283},
                         s, 1e-7);
  test::ExpectTensorNear(g.Value("W/m"),
                         {0.10900002588331696, -0.11800002792477601, 0.07700001871585851, 0.20000004768371582}, s,
                         1e-7);
  test::ExpectTensorNear(g.Value("W/v"),
                         {0.0010099769972059076, 0.0010399466126334448, 0.0003399056320976144, 0.003999948501586914},
                         s, 2e-9);
  Step<float>(g, 3, {-0.5f, 0.25f, 0, 1});
  test::ExpectTensorNear(g.Value("W"), {0.9791905720938985, -0.9764468602313292, 0.4725749517492534, 1.9845561072789681},
                         s, 1e-7);
  test::ExpectTensorNear(g.Value("W/m"),
                         {0.04810000877529318, -0.08120001635849404, 0.06930001500844916, 0.28000006198882943}, s,
                         1e-7);
  test::ExpectTensorNear(g.Value("W/v"),
                         {0.001258963814560937, 0.001101405874747007, 0.000339565730841667, 0.004995935729979806}, s,
                         2e-9);
}

TEST(ApplyAdamTest, NesterovThreeStepsInDouble) {
  test::ApplyGraph g;
  InitSlots<double>(g);
  const TensorShape s({4});
  const AttrMap nesterov = {{"use_nesterov", true}};
  Step<double>(g, 1, {0.1, -0.2, 0.3, 0}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.9810000600830856, -0.9810000300415903, 0.4810000200277374, 2.0}, s, 1e-12);
  Step<double>(g, 2, {1, -1, 0.5, 2}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.9663318001268413, -0.965953616127852, 0.46577313623080907, 1.985861402587736},
                         s, 1e-12);
  Step<double>(g, 3, {-0.5, 0.25, 0, 1}, nesterov);
  test::ExpectTensorNear(g.Value("W"), {0.9667138210358069, -0.9630270253876104, 0.4589358313391637, 1.9758012274775063},
                         s, 1e-12);
  test::ExpectTensorNear(g.Value("W/m"), {0.0481, -0.0812, 0.0693, 0.28}, s, 1e-12);
  test::ExpectTensorNear(g.Value("W/v"), {0.00125898001, 0.00110142004, 0.00033957009, 0.004996}, s, 1e-12);
}

// A variable larger than one block and split across threads: every element
// against the closed form of two steps with a constant gradient, where
// m2 = 0.19 g, v2 = 0.001999 g^2 (beta1 0.9, beta2 0.999).
TEST(ApplyAdamTest, LargeVariableMatchesTheClosedForm) {
  const int64_t n = 100003;
  std::vector<double> w(n), grad(n), zeros(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    w[i] = 0.001 * static_cast<double>(i % 1000);
    grad[i] = 0.1 * static_cast<double>(i % 7 - 3);
  }
  test::ApplyGraph g;
  g.Set("W", MakeTensor<double>(w, TensorShape({n})));
  g.Set("W/m", MakeTensor<double>(zeros, TensorShape({n})));
  g.Set("W/v", MakeTensor<double>(zeros, TensorShape({n})));
  for (int t = 1; t <= 2; ++t) {
    std::vector<Tensor> in = {Tensor::Scalar<double>(std::pow(0.9, t)), Tensor::Scalar<double>(std::pow(0.999, t)),
                              Tensor::Scalar<double>(0.01), Tensor::Scalar<double>(0.9),
                              Tensor::Scalar<double>(0.999), Tensor::Scalar<double>(1e-8),
                              MakeTensor<double>(grad, TensorShape({n}))};
    ASSERT_TRUE(g.Apply("apply_adam", kVars, in).ok());
  }
  // Step 1 moves each weight by 0.01 * sign(g) (bias-corrected m/sqrt(v) =
  // g/|g|); step 2 by lr_t2 * m2 / (sqrt(v2) + eps).
  const double lr_t2 = 0.01 * std::sqrt(1 - 0.999 * 0.999) / (1 - 0.81);
  Tensor out = g.Value("W");
  for (int64_t i = 0; i < n; ++i) {
    const double gi = grad[i];
    const double step1 = gi == 0 ? 0 : 0.01 * gi / (std::fabs(gi) + 1e-8 / std::sqrt(0.001));
    const double step2 = lr_t2 * 0.19 * gi / (std::sqrt(0.001999 * gi * gi) + 1e-8);
    ASSERT_NEAR(out.data<double>()[i], w[i] - step1 - step2, 1e-9) << "at " << i;
  }
}

// Lazy Adam: rows not named keep their m and v (no decay) and their value.
TEST(SparseApplyAdamTest, LazyRowsWithRepeatedIndices) {
  test::ApplyGraph g;
  const TensorShape s({4, 1});
  g.Set("E", MakeTensor<double>({1, 2, 3, 4}, s));
  g.Set("E/m", MakeTensor<double>({0, 0, 0, 0}, s));
  g.Set("E/v", MakeTensor<double>({0, 0, 0, 0}, s));
  const test::VarBinding vars = {{"var", "E"}, {"m", "E/m"}, {"v", "E/v"}};
  auto step = [&](int t, std::vector<double> grad, std::vector<int32_t> idx) {
    const auto k = static_cast<int64_t>(idx.size());
    return g.Apply("sparse_apply_adam", vars,
                   {Tensor::Scalar<double>(std::pow(0.9, t)), Tensor::Scalar<double>(std::pow(0.99, t)),
                    Tensor::Scalar<double>(0.1), Tensor::Scalar<double>(0.9), Tensor::Scalar<double>(0.99),
                    Tensor::Scalar<double>(1e-7), MakeTensor<double>(grad, TensorShape({k, 1})),
                    Tensor::Vector<int32_t>(idx)});
  };
  ASSERT_TRUE(step(1, {1, -2}, {0, 2}).ok());
  test::ExpectTensorNear(g.Value("E"), {0.9000000999999, 2, 3.099999950000025, 4}, s, 1e-12);
  ASSERT_TRUE(step(2, {0.5, 1, 4}, {2, 2, 3}).ok());
  test::ExpectTensorNear(g.Value("E"), {0.9000000999999, 2, 3.108938111914147, 3.9257540397211432}, s, 1e-12);
  test::ExpectTensorNear(g.Value("E/m"), {0.1, 0, -0.03, 0.4}, s, 1e-12);
  test::ExpectTensorNear(g.Value("E/v"), {0.01, 0, 0.0621, 0.16}, s, 1e-12);
}

}  // namespace
}  // namespace tfg::apply_adam_test
