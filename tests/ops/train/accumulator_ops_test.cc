// The accumulator ops through a session: conditional_accumulator,
// accumulator_apply_gradient, accumulator_take_gradient,
// accumulator_num_accumulated and accumulator_set_global_step. Expected
// means are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <thread>

#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg::test {
namespace {

struct AccGraph {
  AccGraph() {
    acc = g.Add("conditional_accumulator", {},
                {{"dtype", DType::kF32}, {"shape", PartialShape({2})}, {"shared_name", std::string("acc")}}, "acc")
              ->output(0);
  }
  Node* Apply(int64_t local_step, std::vector<float> grad) {
    return g.Add("accumulator_apply_gradient",
                 {acc, g.Const(Tensor::Scalar<int64_t>(local_step)), g.Const(MakeTensor<float>(grad, {2}))});
  }
  Output Take(int32_t n) {
    return g.Add("accumulator_take_gradient", {acc, g.Const(Tensor::Scalar<int32_t>(n))},
                 {{"dtype", DType::kF32}, {"element_shape", PartialShape({2})}})
        ->output(0);
  }
  int32_t NumAccumulated() {
    auto r = g.Run({g.Add("accumulator_num_accumulated", {acc})->output(0)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0].scalar<int32_t>() : -1;
  }
  StateGraph g;
  Output acc;
};

TEST(AccumulatorOpsTest, ApplyTakeAndDropAcrossRuns) {
  AccGraph a;
  ASSERT_TRUE(a.g.Run({}, {a.Apply(0, {1, 2})}).ok());
  ASSERT_TRUE(a.g.Run({}, {a.Apply(0, {3, 4})}).ok());
  EXPECT_EQ(a.NumAccumulated(), 2);
  Output take = a.Take(2);
  EXPECT_EQ(take.shape(), PartialShape({2}));
  auto mean = a.g.Run({take});
  ASSERT_TRUE(mean.ok()) << mean.status().ToString();
  ExpectTensorNear((*mean)[0], {2, 3}, TensorShape({2}), 1e-7);  // ([1, 2] + [3, 4]) / 2
  // Global step is 1 now: a gradient from step 0 is stale and dropped.
  ASSERT_TRUE(a.g.Run({}, {a.Apply(0, {9, 9})}).ok());
  EXPECT_EQ(a.NumAccumulated(), 0);
  Node* set = a.g.Add("accumulator_set_global_step", {a.acc, a.g.Const(Tensor::Scalar<int64_t>(5))});
  ASSERT_TRUE(a.g.Run({}, {set}).ok());
  ASSERT_TRUE(a.g.Run({}, {a.Apply(4, {1, 1})}).ok());
  EXPECT_EQ(a.NumAccumulated(), 0);
  ASSERT_TRUE(a.g.Run({}, {a.Apply(5, {1, 1})}).ok());
  EXPECT_EQ(a.NumAccumulated(), 1);
}

TEST(AccumulatorOpsTest, ATakeWaitsForAnotherRunsGradient) {
  AccGraph a;
  Output take = a.Take(1);
  Node* apply = a.Apply(0, {-1, 5});
  Result<std::vector<Tensor>> taken = Internal("not run");
  a.g.session();  // made before the two threads use it
  std::thread chief([&] { taken = a.g.Run({take}); });
  ASSERT_TRUE(a.g.Run({}, {apply}).ok());
  chief.join();
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectTensorNear((*taken)[0], {-1, 5}, TensorShape({2}), 1e-7);
}

TEST(AccumulatorOpsTest, ErrorsNameTheProblem) {
  AccGraph a;
  Node* wrong_shape = a.g.Add("accumulator_apply_gradient", {a.acc, a.g.Const(Tensor::Scalar<int64_t>(0)),
                                                             a.g.Const(MakeTensor<float>({1, 2, 3}, {3}))});
  ExpectError(a.g.Run({}, {wrong_shape}), Code::kInvalidArgument, "holds gradients of shape [2], got [3]");
  Output wrong_dtype = a.g.Add("accumulator_take_gradient", {a.acc, a.g.Const(Tensor::Scalar<int32_t>(1))},
                               {{"dtype", DType::kF64}})
                           ->output(0);
  ExpectError(a.g.Run({wrong_dtype}), Code::kInvalidArgument, "holds f32 gradients but this take gives f64");
  Output other = a.g.Add("conditional_accumulator", {},
                         {{"dtype", DType::kF64}, {"shape", PartialShape({2})}, {"shared_name", std::string("acc")}},
                         "other")
                     ->output(0);
  ExpectError(a.g.Run({other}), Code::kFailedPrecondition, "accumulator 'acc' already exists as f32[2], not f64[2]");
}

TEST(AccumulatorOpsTest, ShapeFunctions) {
  EXPECT_EQ(InferShapesString("accumulator_take_gradient", {PartialShape::Scalar(), PartialShape::Scalar()},
                              {DType::kString, DType::kI32},
                              {{"dtype", DType::kF32}, {"element_shape", PartialShape({3, -1})}}),
            "[3, ?]");
  EXPECT_NE(InferShapesString("accumulator_apply_gradient",
                              {PartialShape::Scalar(), PartialShape({2}), PartialShape({2})},
                              {DType::kString, DType::kI64, DType::kF32}, {{"dtype", DType::kF32}})
                .find("local_step must be a scalar"),
            std::string::npos);
}

}  // namespace
}  // namespace tfg::test
