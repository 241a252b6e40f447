// l2_loss: sum(x ** 2) / 2 from NumPy.
#include <gtest/gtest.h>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

TEST(L2Loss, HalfTheSumOfSquares) {
  for (DType dt : {DType::kF16, DType::kF32, DType::kF64}) {
    Tensor loss = test::Eval("l2_loss", {test::Gen(dt, {3, 4}, 7, 3, 11, 4.0)});
    EXPECT_EQ(loss.dtype(), dt);
    test::ExpectTensorNear(loss, {3.5625}, {}, test::Tol(dt));
  }
  // Many blocks: 10000 ones sum to 5000 exactly.
  test::ExpectTensorNear(test::Eval("l2_loss", {test::MakeTensor<float>(std::vector<float>(10000, 1.0f), {100, 100})}),
                         {5000}, {});
  test::ExpectTensorNear(test::Eval("l2_loss", {test::MakeTensor<double>({}, {0, 3})}), {0}, {});
  EXPECT_FALSE(test::RunOp1("l2_loss", {test::MakeTensor<int32_t>({1, 2}, {2})}).ok());
}

TEST(L2LossGradient, FiniteDifferences) { EXPECT_GRADIENT_OK("l2_loss", {test::RandomF64({3, 5}, -2, 2, 81)}); }

}  // namespace
}  // namespace tfg
