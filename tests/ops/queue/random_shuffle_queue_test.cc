// RandomShuffleQueue: every element comes out once, the order depends only
// on the key, and min_after_dequeue elements stay behind while open.
#include <gtest/gtest.h>

#include <algorithm>

#include "ops/queue/queue_kinds.h"
#include "tests/ops/queue/queue_test_util.h"

namespace tfg::test {
namespace {

std::shared_ptr<RandomShuffleQueue> MakeShuffle(int64_t capacity, int64_t min_after, uint64_t key) {
  return std::make_shared<RandomShuffleQueue>(ScalarConfig(capacity), min_after, key);
}

// Enqueues 0..n-1, closes, and drains the queue.
std::vector<float> Drain(RandomShuffleQueue& q, int n) {
  for (int i = 0; i < n; ++i) {
    StatusSlot s;
    q.TryEnqueue(Element(static_cast<float>(i)), nullptr, s.cb());
    EXPECT_TRUE(s.done() && s.status->ok());
  }
  q.Close(false);
  std::vector<float> out;
  for (;;) {
    TupleSlot t;
    q.TryDequeue(nullptr, t.cb());
    EXPECT_TRUE(t.done());
    if (!t.ok()) break;
    out.push_back(t.value());
  }
  return out;
}

TEST(RandomShuffleQueueTest, HandsOutAPermutation) {
  auto q = MakeShuffle(20, 0, 42);
  std::vector<float> out = Drain(*q, 20);
  ASSERT_EQ(out.size(), 20u);
  std::vector<float> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sorted[i], static_cast<float>(i));
  std::vector<float> in_order(20);
  for (int i = 0; i < 20; ++i) in_order[i] = static_cast<float>(i);
  // 1/20! chance of the identity for a uniform shuffle.
  EXPECT_NE(out, in_order);
}

TEST(RandomShuffleQueueTest, SameKeySameOrderOtherKeyOtherOrder) {
  auto a = Drain(*MakeShuffle(20, 0, 7), 20);
  auto b = Drain(*MakeShuffle(20, 0, 7), 20);
  auto c = Drain(*MakeShuffle(20, 0, 8), 20);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(RandomShuffleQueueTest, KeepsMinAfterDequeueBehindWhileOpen) {
  auto q = MakeShuffle(10, 3, 1);
  for (int i = 0; i < 4; ++i) {
    StatusSlot s;
    q->TryEnqueue(Element(static_cast<float>(i)), nullptr, s.cb());
  }
  TupleSlot first, second;
  q->TryDequeue(nullptr, first.cb());
  EXPECT_TRUE(first.ok());  // 4 held, 3 must stay: one may go
  q->TryDequeue(nullptr, second.cb());
  EXPECT_FALSE(second.done());  // 3 held: none may go
  EXPECT_EQ(q->size(), 3);
  StatusSlot s;
  q->TryEnqueue(Element(4), nullptr, s.cb());
  EXPECT_TRUE(second.ok());
  EXPECT_EQ(q->size(), 3);
  // Closing lifts the floor: the rest comes out.
  q->Close(false);
  for (int i = 0; i < 3; ++i) {
    TupleSlot t;
    q->TryDequeue(nullptr, t.cb());
    EXPECT_TRUE(t.ok());
  }
  EXPECT_EQ(q->size(), 0);
}

TEST(RandomShuffleQueueTest, DequeueManyWaitsForNPlusMinAfterDequeue) {
  auto q = MakeShuffle(10, 2, 1);
  TupleSlot t;
  q->TryDequeueMany(3, false, nullptr, t.cb());
  for (int i = 0; i < 4; ++i) {
    StatusSlot s;
    q->TryEnqueue(Element(static_cast<float>(i)), nullptr, s.cb());
    EXPECT_FALSE(t.done()) << "after " << i + 1 << " elements";
  }
  StatusSlot s;
  q->TryEnqueue(Element(4), nullptr, s.cb());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((**t.result)[0].shape(), TensorShape({3}));
  EXPECT_EQ(q->size(), 2);
}

}  // namespace
}  // namespace tfg::test
