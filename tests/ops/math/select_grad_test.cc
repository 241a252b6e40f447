// Gradient of where(cond, x, y): to x where cond holds, to y elsewhere,
// summed back over broadcast dims; cond gets none.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensorOf;
using test::RandomF64;

Tensor Cond() { return MakeTensorOf(DType::kBool, {1, 0, 0, 1, 1, 0}, {2, 3}); }

TEST(WhereGrad, MatchesFiniteDifferences) {
  EXPECT_GRADIENT_OK("where", {Cond(), RandomF64({2, 3}, -1, 1, 1), RandomF64({2, 3}, -1, 1, 2)});
  EXPECT_GRADIENT_OK("where", {Cond(), RandomF64({3}, -1, 1, 1), RandomF64({}, -1, 1, 2)});
  EXPECT_GRADIENT_OK("where", {MakeTensorOf(DType::kBool, {1, 0}, {2, 1}), RandomF64({2, 3}), RandomF64({1, 3})});
}

TEST(WhereGrad, RoutesByConditionAndUnbroadcasts) {
  const Tensor dz = MakeTensorOf(DType::kF64, {1, 2, 3, 4, 5, 6}, {2, 3});
  auto g = test::SymbolicGradients("where", {Cond(), RandomF64({3}), RandomF64({})}, {}, dz);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->size(), 2u);  // x and y; cond is bool
  ExpectTensorNear((*g)[0], {1 + 4, 5, 0}, {3});
  ExpectTensorNear((*g)[1], {2 + 3 + 6}, {});
  for (auto shapes : {test::FeedShapes::kUnknownDims, test::FeedShapes::kUnknownRank}) {
    auto d = test::SymbolicGradients("where", {Cond(), RandomF64({3}), RandomF64({})}, {}, dz, {{}, shapes});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ExpectTensorNear((*d)[0], {1 + 4, 5, 0}, {3});
    ExpectTensorNear((*d)[1], {2 + 3 + 6}, {});
  }
}

}  // namespace
}  // namespace tfg
