// The conditional accumulator itself: which gradients it keeps, the mean
// of the first n, waiting takes, stale gradients, cancellation. Expected
// means are worked out by hand in the comments.
#include "ops/train/accumulator.h"

#include <gtest/gtest.h>

#include <optional>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::MakeTensor;

std::shared_ptr<ConditionalAccumulator> Acc2() {
  return std::make_shared<ConditionalAccumulator>("acc", DType::kF32, PartialShape({2}));
}

Tensor G(float a, float b) { return MakeTensor<float>({a, b}, TensorShape({2})); }

struct TakeSlot {
  std::optional<Result<Tensor>> result;
  ConditionalAccumulator::TakeCallback cb() {
    return [this](Result<Tensor> r) { result = std::move(r); };
  }
  bool done() const { return result.has_value(); }
};

TEST(ConditionalAccumulatorTest, TakeWaitsForNThenAveragesThem) {
  auto acc = Acc2();
  TakeSlot take;
  acc->TakeGradient(2, nullptr, take.cb());
  EXPECT_FALSE(take.done());
  ASSERT_TRUE(*acc->ApplyGradient(0, G(1, 2)));
  EXPECT_FALSE(take.done());
  EXPECT_EQ(acc->num_accumulated(), 1);
  ASSERT_TRUE(*acc->ApplyGradient(0, G(3, -6)));
  ASSERT_TRUE(take.done());
  ASSERT_TRUE(take.result->ok()) << take.result->status().ToString();
  // ([1, 2] + [3, -6]) / 2 = [2, -2]
  test::ExpectTensorNear(**take.result, {2, -2}, TensorShape({2}), 1e-7);
  EXPECT_EQ(acc->num_accumulated(), 0);
  EXPECT_EQ(acc->global_step(), 1);
}

TEST(ConditionalAccumulatorTest, StaleGradientsAreDropped) {
  auto acc = Acc2();
  TakeSlot first;
  ASSERT_TRUE(*acc->ApplyGradient(0, G(1, 1)));
  acc->TakeGradient(1, nullptr, first.cb());
  ASSERT_TRUE(first.done());  // global step is now 1
  // A replica still computing from step 0 hands its gradient in late.
  EXPECT_FALSE(*acc->ApplyGradient(0, G(100, 100)));
  EXPECT_EQ(acc->num_accumulated(), 0);
  ASSERT_TRUE(*acc->ApplyGradient(1, G(4, 8)));
  ASSERT_TRUE(*acc->ApplyGradient(5, G(2, 0)));  // ahead of the global step counts too
  TakeSlot second;
  acc->TakeGradient(2, nullptr, second.cb());
  ASSERT_TRUE(second.done());
  // ([4, 8] + [2, 0]) / 2 = [3, 4]; the stale [100, 100] is not in it
  test::ExpectTensorNear(**second.result, {3, 4}, TensorShape({2}), 1e-7);
  EXPECT_EQ(acc->global_step(), 2);
}

TEST(ConditionalAccumulatorTest, TakesTheFirstNAndDropsTheRest) {
  auto acc = Acc2();
  ASSERT_TRUE(*acc->ApplyGradient(0, G(1, 0)));
  ASSERT_TRUE(*acc->ApplyGradient(0, G(3, 0)));
  ASSERT_TRUE(*acc->ApplyGradient(0, G(50, 50)));  // third to arrive: a backup worker's
  TakeSlot take;
  acc->TakeGradient(2, nullptr, take.cb());
  ASSERT_TRUE(take.done());
  test::ExpectTensorNear(**take.result, {2, 0}, TensorShape({2}), 1e-7);  // ([1, 0] + [3, 0]) / 2
  EXPECT_EQ(acc->num_accumulated(), 0);
}

TEST(ConditionalAccumulatorTest, WaitingTakesAreServedInOrder) {
  auto acc = Acc2();
  TakeSlot a, b;
  acc->TakeGradient(1, nullptr, a.cb());
  acc->TakeGradient(1, nullptr, b.cb());
  ASSERT_TRUE(*acc->ApplyGradient(0, G(1, 2)));
  ASSERT_TRUE(a.done());
  EXPECT_FALSE(b.done());
  test::ExpectTensorNear(**a.result, {1, 2}, TensorShape({2}), 1e-7);
  EXPECT_FALSE(*acc->ApplyGradient(0, G(9, 9)));  // step 0 is over
  ASSERT_TRUE(*acc->ApplyGradient(1, G(5, 6)));
  ASSERT_TRUE(b.done());
  test::ExpectTensorNear(**b.result, {5, 6}, TensorShape({2}), 1e-7);
}

TEST(ConditionalAccumulatorTest, CancellingAWaitingTakeFailsIt) {
  auto acc = Acc2();
  CancellationManager cm;
  TakeSlot take;
  acc->TakeGradient(2, &cm, take.cb());
  EXPECT_FALSE(take.done());
  cm.StartCancel();
  ASSERT_TRUE(take.done());
  EXPECT_EQ(take.result->status().code(), Code::kCancelled);
  // The cancelled take no longer waits: gradients stay for the next one.
  ASSERT_TRUE(*acc->ApplyGradient(0, G(1, 1)));
  EXPECT_EQ(acc->num_accumulated(), 1);
  TakeSlot late;
  acc->TakeGradient(1, &cm, late.cb());  // already cancelled: fails at once
  ASSERT_TRUE(late.done());
  EXPECT_EQ(late.result->status().code(), Code::kCancelled);
}

TEST(ConditionalAccumulatorTest, SetGlobalStepMovesTheStaleLine) {
  auto acc = Acc2();
  acc->SetGlobalStep(7);
  EXPECT_FALSE(*acc->ApplyGradient(6, G(1, 1)));
  EXPECT_TRUE(*acc->ApplyGradient(7, G(1, 1)));
  EXPECT_EQ(acc->global_step(), 7);
}

TEST(ConditionalAccumulatorTest, WrongDTypeShapeAndNumRequiredAreErrors) {
  auto acc = Acc2();
  test::ExpectError(acc->ApplyGradient(0, MakeTensor<double>({1, 2}, TensorShape({2}))), Code::kInvalidArgument,
                    "holds f32 gradients");
  test::ExpectError(acc->ApplyGradient(0, MakeTensor<float>({1, 2, 3}, TensorShape({3}))), Code::kInvalidArgument,
                    "shape [2]");
  TakeSlot take;
  acc->TakeGradient(0, nullptr, take.cb());
  ASSERT_TRUE(take.done());
  EXPECT_EQ(take.result->status().code(), Code::kInvalidArgument);
  auto open = std::make_shared<ConditionalAccumulator>("any", DType::kF64, PartialShape::Unknown());
  ASSERT_TRUE(*open->ApplyGradient(0, MakeTensor<double>({1, 2}, TensorShape({2}))));
  test::ExpectError(open->ApplyGradient(0, MakeTensor<double>({1}, TensorShape({1}))), Code::kInvalidArgument,
                    "for this step");
}

}  // namespace
}  // namespace tfg
