// FifoQueue: order, waiting for room and data through callbacks, closing,
// cancellation, batches and the checks on elements.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "ops/core/cancellation.h"
#include "ops/queue/queue_kinds.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/queue/queue_test_util.h"

namespace tfg::test {
namespace {

std::shared_ptr<FifoQueue> MakeFifo(int64_t capacity) { return std::make_shared<FifoQueue>(ScalarConfig(capacity)); }

void Put(QueueInterface& q, float v) {
  StatusSlot s;
  q.TryEnqueue(Element(v), nullptr, s.cb());
  ASSERT_TRUE(s.done() && s.status->ok()) << (s.done() ? s.status->ToString() : "still waiting");
}

TEST(FifoQueueTest, DequeuesInEnqueueOrder) {
  auto q = MakeFifo(5);
  for (float v : {3.f, 1.f, 2.f}) Put(*q, v);
  EXPECT_EQ(q->size(), 3);
  for (float expected : {3.f, 1.f, 2.f}) {
    TupleSlot t;
    q->TryDequeue(nullptr, t.cb());
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t.value(), expected);
  }
  EXPECT_EQ(q->size(), 0);
}

TEST(FifoQueueTest, EnqueueWaitsWhileFullAndFinishesWhenRoomIsMade) {
  auto q = MakeFifo(2);
  Put(*q, 1);
  Put(*q, 2);
  StatusSlot third;
  q->TryEnqueue(Element(3), nullptr, third.cb());
  EXPECT_FALSE(third.done());
  EXPECT_EQ(q->size(), 2);
  EXPECT_EQ(q->WaitDescription(), "queue 'q' (full, capacity 2, 1 enqueue waiting)");
  TupleSlot first;
  q->TryDequeue(nullptr, first.cb());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value(), 1.f);
  ASSERT_TRUE(third.done());  // the dequeue made room
  EXPECT_TRUE(third.status->ok());
  EXPECT_EQ(q->size(), 2);
}

TEST(FifoQueueTest, DequeueWaitsWhileEmptyAndGetsTheNextElement) {
  auto q = MakeFifo(2);
  TupleSlot t;
  q->TryDequeue(nullptr, t.cb());
  EXPECT_FALSE(t.done());
  EXPECT_EQ(q->WaitDescription(), "queue 'q' (empty, capacity 2, 1 dequeue waiting)");
  Put(*q, 7);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value(), 7.f);
  EXPECT_EQ(q->size(), 0);  // handed straight to the waiting dequeue
}

TEST(FifoQueueTest, WaitingDequeuesAreServedInOrder) {
  auto q = MakeFifo(4);
  TupleSlot a, b;
  q->TryDequeue(nullptr, a.cb());
  q->TryDequeue(nullptr, b.cb());
  Put(*q, 1);
  EXPECT_TRUE(a.ok());
  EXPECT_FALSE(b.done());
  Put(*q, 2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a.value(), 1.f);
  EXPECT_EQ(b.value(), 2.f);
}

TEST(FifoQueueTest, ClosedQueueRefusesEnqueuesAndDrainsThenOutOfRange) {
  auto q = MakeFifo(3);
  Put(*q, 1);
  q->Close(false);
  EXPECT_TRUE(q->is_closed());
  StatusSlot late;
  q->TryEnqueue(Element(2), nullptr, late.cb());
  ASSERT_TRUE(late.done());
  EXPECT_EQ(late.status->code(), Code::kAborted);
  TupleSlot first, second;
  q->TryDequeue(nullptr, first.cb());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first.value(), 1.f);
  q->TryDequeue(nullptr, second.cb());
  ASSERT_TRUE(second.done());
  EXPECT_EQ(second.code(), Code::kOutOfRange);
}

TEST(FifoQueueTest, CloseFailsWaitingDequeues) {
  auto q = MakeFifo(3);
  TupleSlot t;
  q->TryDequeue(nullptr, t.cb());
  q->Close(false);
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.code(), Code::kOutOfRange);
}

TEST(FifoQueueTest, CloseLetsWaitingEnqueuesFinishUnlessCancelled) {
  auto q = MakeFifo(1);
  Put(*q, 1);
  StatusSlot pending;
  q->TryEnqueue(Element(2), nullptr, pending.cb());
  q->Close(false);
  EXPECT_FALSE(pending.done());  // still waits for room
  TupleSlot a, b, c;
  q->TryDequeue(nullptr, a.cb());
  ASSERT_TRUE(pending.done());
  EXPECT_TRUE(pending.status->ok());
  q->TryDequeue(nullptr, b.cb());
  q->TryDequeue(nullptr, c.cb());
  EXPECT_EQ(a.value(), 1.f);
  EXPECT_EQ(b.value(), 2.f);
  EXPECT_EQ(c.code(), Code::kOutOfRange);

  auto q2 = MakeFifo(1);
  Put(*q2, 1);
  StatusSlot cancelled;
  q2->TryEnqueue(Element(2), nullptr, cancelled.cb());
  q2->Close(true);
  ASSERT_TRUE(cancelled.done());
  EXPECT_EQ(cancelled.status->code(), Code::kAborted);
  EXPECT_EQ(q2->size(), 1);
}

TEST(FifoQueueTest, CancellingTheStepEndsItsWaitsWithCancelled) {
  auto q = MakeFifo(1);
  CancellationManager cm;
  TupleSlot waiting_dequeue;
  q->TryDequeue(&cm, waiting_dequeue.cb());
  EXPECT_FALSE(waiting_dequeue.done());
  cm.StartCancel();
  ASSERT_TRUE(waiting_dequeue.done());
  EXPECT_EQ(waiting_dequeue.code(), Code::kCancelled);
  // The cancelled wait is gone: the next element is kept for others.
  Put(*q, 5);
  EXPECT_EQ(q->size(), 1);
  StatusSlot waiting_enqueue;
  CancellationManager cm2;
  q->TryEnqueue(Element(6), &cm2, waiting_enqueue.cb());
  EXPECT_FALSE(waiting_enqueue.done());
  cm2.StartCancel();
  ASSERT_TRUE(waiting_enqueue.done());
  EXPECT_EQ(waiting_enqueue.status->code(), Code::kCancelled);
  // A wait asked for under an already cancelled manager ends at once.
  TupleSlot t;
  q->TryDequeue(&cm, t.cb());  // an element is there: no wait, so it succeeds
  EXPECT_TRUE(t.ok());
  TupleSlot late;
  q->TryDequeue(&cm, late.cb());
  ASSERT_TRUE(late.done());
  EXPECT_EQ(late.code(), Code::kCancelled);
}

TEST(FifoQueueTest, FinishedWaitsAreNotCancelledLater) {
  auto q = MakeFifo(1);
  CancellationManager cm;
  int calls = 0;
  q->TryDequeue(&cm, [&](Result<QueueInterface::Tuple>) { ++calls; });
  Put(*q, 1);
  cm.StartCancel();
  EXPECT_EQ(calls, 1);
}

TEST(FifoQueueTest, EnqueueManySplitsAndDequeueManyStacks) {
  auto q = MakeFifo(4);
  StatusSlot s;
  q->TryEnqueueMany({MakeTensor<float>({1, 2, 3}, {3})}, nullptr, s.cb());
  ASSERT_TRUE(s.done() && s.status->ok());
  EXPECT_EQ(q->size(), 3);
  TupleSlot t;
  q->TryDequeueMany(2, false, nullptr, t.cb());
  ASSERT_TRUE(t.ok());
  ExpectTensorEq<float>((**t.result)[0], {1, 2}, {2});
  EXPECT_EQ(q->size(), 1);
}

TEST(FifoQueueTest, EnqueueManyLargerThanCapacityGoesInAsRoomIsMade) {
  auto q = MakeFifo(2);
  StatusSlot s;
  q->TryEnqueueMany({MakeTensor<float>({1, 2, 3}, {3})}, nullptr, s.cb());
  EXPECT_FALSE(s.done());
  EXPECT_EQ(q->size(), 2);
  TupleSlot t;
  q->TryDequeueMany(2, false, nullptr, t.cb());
  ASSERT_TRUE(t.ok());
  ExpectTensorEq<float>((**t.result)[0], {1, 2}, {2});
  ASSERT_TRUE(s.done());
  EXPECT_TRUE(s.status->ok());
  EXPECT_EQ(q->size(), 1);
}

TEST(FifoQueueTest, DequeueManyWaitsForAllNOrFailsWhenClosedShort) {
  auto q = MakeFifo(5);
  TupleSlot t;
  q->TryDequeueMany(3, false, nullptr, t.cb());
  Put(*q, 1);
  Put(*q, 2);
  EXPECT_FALSE(t.done());
  EXPECT_EQ(q->size(), 2);
  q->Close(false);
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.code(), Code::kOutOfRange);
  EXPECT_NE(t.result->status().message().find("closed and has 2 elements left, fewer than the 3 requested"),
            std::string::npos)
      << t.result->status().message();
}

TEST(FifoQueueTest, DequeueUpToHandsOutTheRestOfAClosedQueue) {
  auto q = MakeFifo(5);
  for (float v : {1.f, 2.f, 3.f}) Put(*q, v);
  TupleSlot full, rest, none;
  q->TryDequeueMany(2, true, nullptr, full.cb());
  ASSERT_TRUE(full.ok());
  ExpectTensorEq<float>((**full.result)[0], {1, 2}, {2});
  q->TryDequeueMany(2, true, nullptr, rest.cb());
  EXPECT_FALSE(rest.done());  // open: waits for a second element
  q->Close(false);
  ASSERT_TRUE(rest.ok());
  ExpectTensorEq<float>((**rest.result)[0], {3}, {1});
  q->TryDequeueMany(2, true, nullptr, none.cb());
  EXPECT_EQ(none.code(), Code::kOutOfRange);
}

TEST(FifoQueueTest, DequeueManyOfMoreThanTheCapacityIsAnError) {
  auto q = MakeFifo(2);
  TupleSlot t;
  q->TryDequeueMany(3, false, nullptr, t.cb());
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.code(), Code::kInvalidArgument);
}

TEST(FifoQueueTest, ElementsAreCheckedAgainstDTypesAndShapes) {
  QueueConfig config;
  config.name = "pairs";
  config.capacity = 3;
  config.types = {DType::kF32, DType::kI32};
  config.shapes = {PartialShape({2}), PartialShape::Scalar()};
  auto q = std::make_shared<FifoQueue>(config);
  StatusSlot wrong_count, wrong_type, wrong_shape, ok;
  q->TryEnqueue({MakeTensor<float>({1, 2}, {2})}, nullptr, wrong_count.cb());
  q->TryEnqueue({MakeTensor<float>({1, 2}, {2}), Tensor::Scalar<float>(1)}, nullptr, wrong_type.cb());
  q->TryEnqueue({MakeTensor<float>({1, 2, 3}, {3}), Tensor::Scalar<int32_t>(1)}, nullptr, wrong_shape.cb());
  q->TryEnqueue({MakeTensor<float>({1, 2}, {2}), Tensor::Scalar<int32_t>(1)}, nullptr, ok.cb());
  EXPECT_EQ(wrong_count.status->code(), Code::kInvalidArgument);
  EXPECT_NE(wrong_count.status->message().find("got 1 component, the queue holds 2"), std::string::npos)
      << wrong_count.status->message();
  EXPECT_NE(wrong_type.status->message().find("queue 'pairs': component 1 is f32[], the queue holds i32"),
            std::string::npos)
      << wrong_type.status->message();
  EXPECT_NE(wrong_shape.status->message().find("component 0 has shape [3], the queue holds [2]"), std::string::npos)
      << wrong_shape.status->message();
  EXPECT_TRUE(ok.status->ok());
  EXPECT_EQ(q->size(), 1);
  TupleSlot t;
  q->TryDequeue(nullptr, t.cb());
  ASSERT_TRUE(t.ok());
  ExpectTensorEq<int32_t>((**t.result)[1], {1}, {});
}

TEST(FifoQueueTest, CompatibleOnlyWithTheSameKindAndSettings) {
  auto q = MakeFifo(2);
  EXPECT_TRUE(q->CheckCompatible("fifo_queue", ScalarConfig(2)).ok());
  EXPECT_EQ(q->CheckCompatible("fifo_queue", ScalarConfig(3)).code(), Code::kFailedPrecondition);
  EXPECT_EQ(q->CheckCompatible("padding_fifo_queue", ScalarConfig(2)).code(), Code::kFailedPrecondition);
}

// Producers and consumers on several threads, each waiting for its call to
// finish before the next: every element arrives exactly once.
TEST(FifoQueueTest, ManyThreadsPassEveryElementOnce) {
  auto q = MakeFifo(3);
  constexpr int kThreads = 4, kPerThread = 500;
  std::vector<std::thread> threads;
  std::vector<double> sums(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&q, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::promise<Status> done;
        q->TryEnqueue(Element(static_cast<float>(t * kPerThread + i)), nullptr,
                      [&done](Status s) { done.set_value(std::move(s)); });
        EXPECT_TRUE(done.get_future().get().ok());
      }
    });
    threads.emplace_back([&q, &sums, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::promise<Result<QueueInterface::Tuple>> done;
        q->TryDequeue(nullptr, [&done](Result<QueueInterface::Tuple> r) { done.set_value(std::move(r)); });
        auto r = done.get_future().get();
        ASSERT_TRUE(r.ok());
        sums[t] += (*r)[0].scalar<float>();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  double total = 0;
  for (double s : sums) total += s;
  const double n = kThreads * kPerThread;
  EXPECT_EQ(total, n * (n - 1) / 2);  // 0 + 1 + ... + (n - 1)
  EXPECT_EQ(q->size(), 0);
}

}  // namespace
}  // namespace tfg::test
