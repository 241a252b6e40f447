// The queue ops run through a session: queues made on first run and found
// again by later runs, shape functions, containers and shared names.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg::test {
namespace {

AttrMap FifoAttrs(int64_t capacity, const std::string& container = "", const std::string& shared = "") {
  return {{"capacity", capacity},
          {"dtypes", std::vector<DType>{DType::kF32}},
          {"shapes", std::vector<PartialShape>{PartialShape({2})}},
          {"container", container},
          {"shared_name", shared}};
}

AttrMap DequeueAttrs(std::optional<int64_t> n = std::nullopt) {
  AttrMap attrs = {{"component_types", std::vector<DType>{DType::kF32}},
                   {"component_shapes", std::vector<PartialShape>{PartialShape({2})}}};
  if (n) attrs["n"] = *n;
  return attrs;
}

struct FifoGraph {
  explicit FifoGraph(int64_t capacity, const std::string& container = "") {
    queue = g.Add("fifo_queue", {}, FifoAttrs(capacity, container), "q")->output(0);
  }
  Node* Enqueue(std::vector<float> values) {
    return g.Add("enqueue", {queue, g.Const(MakeTensor<float>(values, {2}))});
  }
  Output Size() { return g.Add("queue_size", {queue})->output(0); }
  StateGraph g;
  Output queue;
};

TEST(QueueOpsTest, EnqueueThenDequeueAcrossRuns) {
  FifoGraph f(4);
  Node* first = f.Enqueue({1, 2});
  Node* second = f.Enqueue({3, 4});
  Output dequeued = f.g.Add("dequeue", {f.queue}, DequeueAttrs())->output(0);
  ASSERT_TRUE(f.g.Run({}, {first}).ok());
  ASSERT_TRUE(f.g.Run({}, {second}).ok());
  auto size = f.g.Run({f.Size()});
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  ExpectTensorEq<int32_t>((*size)[0], {2}, {});
  auto r = f.g.Run({dequeued});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorEq<float>((*r)[0], {1, 2}, {2});
}

TEST(QueueOpsTest, DequeueManyStacksAndClosedQueueIsOutOfRange) {
  FifoGraph f(4);
  Node* enqueue_many = f.g.Add("enqueue_many", {f.queue, f.g.Const(MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}))});
  Output batch = f.g.Add("dequeue_many", {f.queue}, DequeueAttrs(2))->output(0);
  EXPECT_EQ(batch.shape(), PartialShape({2, 2}));
  Node* close = f.g.Add("close", {f.queue});
  ASSERT_TRUE(f.g.Run({}, {enqueue_many}).ok());
  auto r = f.g.Run({batch});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorEq<float>((*r)[0], {1, 2, 3, 4}, {2, 2});
  ASSERT_TRUE(f.g.Run({}, {close}).ok());
  auto short_batch = f.g.Run({batch});
  ASSERT_FALSE(short_batch.ok());
  EXPECT_EQ(short_batch.status().code(), Code::kOutOfRange);
  auto refused = f.g.Run({}, {f.Enqueue({7, 8})});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kAborted);
}

TEST(QueueOpsTest, EnqueueChecksShapesAtRunTime) {
  FifoGraph f(4);
  Node* wrong = f.g.Add("enqueue", {f.queue, f.g.Const(MakeTensor<float>({1, 2, 3}, {3}))});
  auto r = f.g.Run({}, {wrong});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("component 0 has shape [3], the queue holds [2]"), std::string::npos)
      << r.status().ToString();
}

TEST(QueueOpsTest, ResetOfTheContainerDropsTheQueue) {
  FifoGraph f(4, "c");
  Node* enqueue = f.Enqueue({1, 2});
  Output size = f.Size();
  ASSERT_TRUE(f.g.Run({}, {enqueue}).ok());
  ExpectTensorEq<int32_t>((*f.g.Run({size}))[0], {1}, {});
  f.g.session().resources()->Reset("");  // another container: the queue stays
  ExpectTensorEq<int32_t>((*f.g.Run({size}))[0], {1}, {});
  f.g.session().resources()->Reset("c");
  ExpectTensorEq<int32_t>((*f.g.Run({size}))[0], {0}, {});
}

TEST(QueueOpsTest, SharedNameJoinsQueuesOfTheSameSettingsOnly) {
  StateGraph g;
  Output a = g.Add("fifo_queue", {}, FifoAttrs(4, "", "shared"), "a")->output(0);
  Output b = g.Add("fifo_queue", {}, FifoAttrs(4, "", "shared"), "b")->output(0);
  Output c = g.Add("fifo_queue", {}, FifoAttrs(5, "", "shared"), "c")->output(0);
  Node* enqueue = g.Add("enqueue", {a, g.Const(MakeTensor<float>({1, 2}, {2}))});
  Output size_b = g.Add("queue_size", {b})->output(0);
  ASSERT_TRUE(g.Run({}, {enqueue}).ok());
  ExpectTensorEq<int32_t>((*g.Run({size_b}))[0], {1}, {});
  auto clash = g.Run({c});
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(clash.status().message().find("queue 'shared' already exists"), std::string::npos)
      << clash.status().ToString();
}

TEST(QueueOpsTest, ComponentsOfDifferentDTypesKeepTheirDTypes) {
  StateGraph g;
  AttrMap fifo = FifoAttrs(4);
  fifo["dtypes"] = std::vector<DType>{DType::kF32, DType::kI32};
  fifo["shapes"] = std::vector<PartialShape>{PartialShape({2}), PartialShape::Scalar()};
  Output q = g.Add("fifo_queue", {}, fifo, "q")->output(0);
  Node* enqueue_many = g.Add("enqueue_many", {q, g.Const(MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2})),
                                              g.Const(MakeTensor<int32_t>({7, 8, 9}, {3}))});
  EXPECT_EQ(*enqueue_many->attr<std::vector<DType>>("component_types"),
            (std::vector<DType>{DType::kF32, DType::kI32}));
  Node* dequeue_many = g.Add("dequeue_many", {q},
                             {{"n", int64_t{2}},
                              {"component_types", std::vector<DType>{DType::kF32, DType::kI32}},
                              {"component_shapes", std::get<std::vector<PartialShape>>(fifo.at("shapes"))}});
  ASSERT_EQ(dequeue_many->num_outputs(), 2);
  EXPECT_EQ(dequeue_many->output(0).dtype(), DType::kF32);
  EXPECT_EQ(dequeue_many->output(1).dtype(), DType::kI32);
  EXPECT_EQ(dequeue_many->output(0).shape(), PartialShape({2, 2}));
  EXPECT_EQ(dequeue_many->output(1).shape(), PartialShape({2}));
  ASSERT_TRUE(g.Run({}, {enqueue_many}).ok());
  auto r = g.Run({dequeue_many->output(0), dequeue_many->output(1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorEq<float>((*r)[0], {1, 2, 3, 4}, {2, 2});
  ExpectTensorEq<int32_t>((*r)[1], {7, 8}, {2});
}

TEST(QueueOpsTest, DequeueOfOtherDTypesThanTheQueueFailsAtRunTime) {
  StateGraph g;
  AttrMap fifo = FifoAttrs(4);
  Output q = g.Add("fifo_queue", {}, fifo, "q")->output(0);
  Node* enqueue = g.Add("enqueue", {q, g.Const(MakeTensor<float>({1, 2}, {2}))});
  AttrMap wrong = DequeueAttrs();
  wrong["component_types"] = std::vector<DType>{DType::kI32};
  Output dequeued = g.Add("dequeue", {q}, wrong)->output(0);
  EXPECT_EQ(dequeued.dtype(), DType::kI32);
  ASSERT_TRUE(g.Run({}, {enqueue}).ok());
  auto r = g.Run({dequeued});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("component 0 is"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("but this dequeue expects i32"), std::string::npos) << r.status().ToString();
}

TEST(QueueOpsTest, ShapeFunctions) {
  AttrMap fifo = FifoAttrs(0);
  EXPECT_NE(InferShapesString("fifo_queue", {}, {}, fifo).find("capacity must be at least 1"), std::string::npos);
  AttrMap mismatch = FifoAttrs(2);
  mismatch["dtypes"] = std::vector<DType>{DType::kF32, DType::kF32};
  EXPECT_NE(InferShapesString("fifo_queue", {}, {}, mismatch).find("shapes gives 1 shape for 2 dtypes"),
            std::string::npos);
  EXPECT_EQ(InferShapesString("fifo_queue", {}, {}, FifoAttrs(2)), "[]");
  EXPECT_EQ(InferShapesString("dequeue", {PartialShape::Scalar()}, {DType::kString}, DequeueAttrs()), "[2]");
  EXPECT_EQ(InferShapesString("dequeue_many", {PartialShape::Scalar()}, {DType::kString}, DequeueAttrs(5)), "[5, 2]");
  EXPECT_EQ(InferShapesString("dequeue_up_to", {PartialShape::Scalar()}, {DType::kString}, DequeueAttrs(5)),
            "[?, 2]");
  AttrMap shuffle = FifoAttrs(4);
  shuffle["min_after_dequeue"] = int64_t{4};
  shuffle["seed"] = int64_t{0};
  EXPECT_NE(InferShapesString("random_shuffle_queue", {}, {}, shuffle).find("min_after_dequeue must be in [0, capacity)"),
            std::string::npos);
  AttrMap padding = FifoAttrs(4);
  padding.erase("shapes");
  padding["shapes"] = std::vector<PartialShape>{PartialShape::Unknown()};
  EXPECT_NE(InferShapesString("padding_fifo_queue", {}, {}, padding).find("must have a known rank"), std::string::npos);
}

}  // namespace
}  // namespace tfg::test
