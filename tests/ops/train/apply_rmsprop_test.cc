// Expected values computed with NumPy in float64 (TF 1.x's RMSProp formula).
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg::apply_rmsprop_test {
namespace {

using test::MakeTensor;

template <typename T>
Status Step(test::ApplyGraph& g, std::vector<T> grad) {
  // lr 0.01, rho 0.9, momentum 0.5, epsilon 1e-10.
  return g.Apply("apply_rmsprop", {{"var", "W"}, {"ms", "W/ms"}, {"mom", "W/mom"}},
                 {Tensor::Scalar<T>(T(0.01)), Tensor::Scalar<T>(T(0.9)), Tensor::Scalar<T>(T(0.5)),
                  Tensor::Scalar<T>(T(1e-10)), Tensor::Vector<T>(grad)});
}

template <typename T>
void RunThreeSteps(double tol) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<T>({1, 2, -1}));
  g.Set("W/ms", Tensor::Vector<T>({1, 1, 1}));
  g.Set("W/mom", Tensor::Vector<T>({0, 0, 0}));
  const TensorShape s({3});
  ASSERT_TRUE(Step<T>(g, {0.5, -1, 2}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.9948012475511806, 2.0099999999995, -1.0175411603854658}, s, tol);
  test::ExpectTensorNear(g.Value("W/ms"), {0.925, 1.0, 1.3}, s, tol);
  test::ExpectTensorNear(g.Value("W/mom"), {0.00519875244881935, -0.0099999999995, 0.017541160385465927}, s, tol);
  ASSERT_TRUE(Step<T>(g, {1, 1, 1}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.9818462638657562, 2.0049999999997503, -1.0351853056720106}, s, tol);
  test::ExpectTensorNear(g.Value("W/mom"), {0.01295498368542437, 0.00499999999975, 0.017644145286544746}, s, tol);
  ASSERT_TRUE(Step<T>(g, {-2, 0, 0.5}).ok());
  test::ExpectTensorNear(g.Value("W"), {0.9933347363021325, 2.002499999999875, -1.0486338358788199}, s, tol);
  test::ExpectTensorNear(g.Value("W/ms"), {1.23925, 0.9, 1.168}, s, tol);
  test::ExpectTensorNear(g.Value("W/mom"), {-0.011488472436376325, 0.002499999999875, 0.013448530206809355}, s, tol);
}

TEST(ApplyRmsPropTest, ThreeStepsFloat) { RunThreeSteps<float>(1e-6); }
TEST(ApplyRmsPropTest, ThreeStepsDouble) { RunThreeSteps<double>(1e-12); }

}  // namespace
}  // namespace tfg::apply_rmsprop_test
