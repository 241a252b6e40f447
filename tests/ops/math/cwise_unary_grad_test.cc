// Gradients of the unary math ops: finite differences in f64 over each op's
// domain, and exact values at the kinks (where TensorFlow's conventions
// decide, and finite differences cannot).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

struct Domain {
  const char* op;
  double lo, hi;
};

// Away from kinks and poles; random values never land within the
// finite-difference step of relu's or abs's kink at 0.
const Domain kDomains[] = {
    {"neg", -2, 2},    {"abs", -2, 2},    {"square", -2, 2}, {"relu", -2, 2},  {"exp", -2, 2},
    {"log", 0.2, 3},   {"sqrt", 0.2, 3},  {"rsqrt", 0.2, 3}, {"tanh", -2, 2},  {"sigmoid", -4, 4},
    {"sin", -3, 3},    {"cos", -3, 3},    {"log1p", -0.8, 3}, {"expm1", -2, 2}, {"reciprocal", 0.3, 3},
};

TEST(CwiseUnaryGrad, MatchesFiniteDifferences) {
  for (const Domain& d : kDomains) {
    SCOPED_TRACE(d.op);
    EXPECT_GRADIENT_OK(d.op, {RandomF64({2, 5}, d.lo, d.hi, 11)});
    EXPECT_GRADIENT_OK(d.op, {RandomF64({}, d.lo, d.hi, 12)});
  }
}

// At 0: relu' = 0 and |x|' = sign(0) = 0, as in TensorFlow.
TEST(CwiseUnaryGrad, KinksFollowTensorFlow) {
  const Tensor x = MakeTensorOf(DType::kF64, {-2, -0.5, 0, 0.5, 2}, {5});
  const Tensor dy = MakeTensorOf(DType::kF64, {1, 2, 3, 4, 5}, {5});
  auto relu = test::SymbolicGradients("relu", {x}, {}, dy);
  ASSERT_TRUE(relu.ok()) << relu.status().ToString();
  ExpectTensorNear((*relu)[0], {0, 0, 0, 4, 5}, {5});
  auto abs = test::SymbolicGradients("abs", {x}, {}, dy);
  ASSERT_TRUE(abs.ok()) << abs.status().ToString();
  ExpectTensorNear((*abs)[0], {-1, -2, 0, 4, 5}, {5});
}

// The gradient keeps the input's dtype, through the fused helpers too.
TEST(CwiseUnaryGrad, FloatDtypesKeepTheirType) {
  for (DType dt : {DType::kF16, DType::kF32}) {
    const Tensor x = MakeTensorOf(dt, {-1, 0.5, 2}, {3});
    const Tensor dy = MakeTensorOf(dt, {1, 1, 1}, {3});
    auto tanh = test::SymbolicGradients("tanh", {x}, {}, dy);
    ASSERT_TRUE(tanh.ok()) << tanh.status().ToString();
    EXPECT_EQ((*tanh)[0].dtype(), dt);
    // 1 - tanh(x)^2 from NumPy.
    ExpectTensorNear((*tanh)[0], {0.41997434161402614, 0.7864477329659274, 0.07065082485316443}, {3},
                     dt == DType::kF16 ? 2e-3 : 1e-6);
  }
}

TEST(CwiseUnaryGrad, RoundingHasNoGradient) {
  for (const char* op : {"floor", "ceil", "round"}) {
    SCOPED_TRACE(op);
    auto r = test::SymbolicGradients(op, {RandomF64({3})}, {}, RandomF64({3}));
    test::ExpectError(r, Code::kInvalidArgument, "every path from it to the result passes through an op that has no");
  }
}

// sign is piecewise constant; TensorFlow gives zeros (not "no gradient"),
// also at 0 and whatever dy is.
TEST(CwiseUnaryGrad, SignGradientIsZero) {
  const Tensor x = MakeTensorOf(DType::kF64, {-2, -0.5, 0, 0.5, 2}, {5});
  const Tensor dy = MakeTensorOf(DType::kF64, {1, 2, 3, 4, 5}, {5});
  auto r = test::SymbolicGradients("sign", {x}, {}, dy);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].dtype(), DType::kF64);
  ExpectTensorNear((*r)[0], {0, 0, 0, 0, 0}, {5}, 0);
}

}  // namespace
}  // namespace tfg
