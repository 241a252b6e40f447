// PaddingFifoQueue: batches pad the `?` dimensions to the largest element.
#include <gtest/gtest.h>

#include "ops/queue/queue_kinds.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/queue/queue_test_util.h"

namespace tfg::test {
namespace {

TEST(PaddingFifoQueueTest, PadsVaryingDimensionsWithZerosAndEmptyStrings) {
  QueueConfig config;
  config.name = "seqs";
  config.capacity = 4;
  config.types = {DType::kI32, DType::kString};
  config.shapes = {PartialShape({-1, 2}), PartialShape({-1})};
  auto q = std::make_shared<PaddingFifoQueue>(config);
  StatusSlot a, b;
  q->TryEnqueue({MakeTensor<int32_t>({1, 2}, {1, 2}), MakeStrings({"x"}, {1})}, nullptr, a.cb());
  q->TryEnqueue({MakeTensor<int32_t>({3, 4, 5, 6, 7, 8}, {3, 2}), MakeStrings({"y", "z"}, {2})}, nullptr, b.cb());
  ASSERT_TRUE(a.status->ok() && b.status->ok());
  TupleSlot t;
  q->TryDequeueMany(2, false, nullptr, t.cb());
  ASSERT_TRUE(t.ok()) << t.result->status().ToString();
  ExpectTensorEq<int32_t>((**t.result)[0], {1, 2, 0, 0, 0, 0, 3, 4, 5, 6, 7, 8}, {2, 3, 2});
  const Tensor& s = (**t.result)[1];
  ASSERT_EQ(s.shape(), TensorShape({2, 2}));
  EXPECT_EQ(s.data<std::string>()[0], "x");
  EXPECT_EQ(s.data<std::string>()[1], "");
  EXPECT_EQ(s.data<std::string>()[2], "y");
  EXPECT_EQ(s.data<std::string>()[3], "z");
}

TEST(PaddingFifoQueueTest, PadsInnerDimensionsToo) {
  QueueConfig config;
  config.name = "grids";
  config.capacity = 2;
  config.types = {DType::kF32};
  config.shapes = {PartialShape({-1, -1})};
  auto q = std::make_shared<PaddingFifoQueue>(config);
  StatusSlot a, b;
  q->TryEnqueue({MakeTensor<float>({1, 2}, {1, 2})}, nullptr, a.cb());
  q->TryEnqueue({MakeTensor<float>({3, 4}, {2, 1})}, nullptr, b.cb());
  TupleSlot t;
  q->TryDequeueMany(2, false, nullptr, t.cb());
  ASSERT_TRUE(t.ok());
  // [[1 2] [0 0]] and [[3 0] [4 0]]
  ExpectTensorEq<float>((**t.result)[0], {1, 2, 0, 0, 3, 0, 4, 0}, {2, 2, 2});
}

TEST(PaddingFifoQueueTest, AFifoQueueRefusesToBatchDifferentShapes) {
  QueueConfig config;
  config.name = "loose";
  config.capacity = 2;
  config.types = {DType::kF32};
  auto q = std::make_shared<FifoQueue>(config);
  StatusSlot a, b;
  q->TryEnqueue({MakeTensor<float>({1}, {1})}, nullptr, a.cb());
  q->TryEnqueue({MakeTensor<float>({1, 2}, {2})}, nullptr, b.cb());
  TupleSlot t;
  q->TryDequeueMany(2, false, nullptr, t.cb());
  ASSERT_TRUE(t.done());
  EXPECT_EQ(t.code(), Code::kInvalidArgument);
  EXPECT_NE(t.result->status().message().find("shapes [1] and [2]"), std::string::npos)
      << t.result->status().message();
}

}  // namespace
}  // namespace tfg::test
