// selu. Values and gradients recorded from TensorFlow 2.21 (tf.nn.selu,
// tf.GradientTape).
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::selu_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kX = {-0.9, -0.3, 0.0, 0.25, 0.8};

TEST(SeluTest, MatchesTensorFlow) {
  ExpectTensorNear(Eval("selu", {MakeTensor<double>(kX, {5})}),
                   {-1.0433094900488873, -0.4556673153791221, 0.0, 0.2626752468388701, 0.8405607898843844}, {5},
                   1e-15);
  ExpectTensorNear(Eval("selu", {MakeTensorOf(DType::kF32, kX, {5})}),
                   {-1.0433094501495361, -0.4556673467159271, 0.0, 0.2626752555370331, 0.8405608534812927}, {5},
                   2e-7);
  // tf.nn.selu in float16, of [-0.9, 0.25, 0.8].
  ExpectTensorNear(Eval("selu", {MakeTensorOf(DType::kF16, {-0.9, 0.25, 0.8}, {3})}),
                   {-1.0439453125, 0.2626953125, 0.84033203125}, {3}, 1e-3);
  const double inf = std::numeric_limits<double>::infinity();
  ExpectTensorNear(Eval("selu", {MakeTensor<double>({inf, -inf, 20.0, -20.0}, {4})}),
                   {inf, -1.7580993408473768, 21.014019747109607, -1.7580993372236642}, {4}, 1e-15);
  ExpectTensorNear(Eval("selu", {MakeTensor<float>({}, {0})}), {}, {0});
}

// At x = 0 the slope is scale (TensorFlow's SeluGrad takes y >= 0 as the
// linear side).
TEST(SeluTest, GradientMatchesTensorFlow) {
  auto g = test::SymbolicGradients("selu", {MakeTensor<double>(kX, {5})}, {}, MakeTensor<double>({1, 1, 1, 1, 1}, {5}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0],
                   {0.7147898507984896, 1.3024320254682547, 1.0507009873554805, 1.0507009873554805,
                    1.0507009873554805},
                   {5}, 1e-15);
}

TEST(SeluTest, GradientMatchesFiniteDifferences) {
  EXPECT_GRADIENT_OK("selu", {MakeTensor<double>({-2.0, -0.9, -0.3, 0.25, 0.8, 3.0}, {2, 3})});
}

TEST(SeluTest, IntegersAreRefused) {
  ExpectError(test::RunOp1("selu", {MakeTensor<int64_t>({1}, {1})}), Code::kInvalidArgument, "i64");
}

}  // namespace
}  // namespace tfg::selu_test
