#include "net/remote_rendezvous.h"

#include <gtest/gtest.h>

namespace tfg::net {
namespace {

constexpr const char* kHere = "/job:worker/replica:0/task:0";
constexpr const char* kThere = "/job:ps/replica:0/task:0";

RendezvousKey Key(const std::string& dst) {
  return RendezvousKey{5, std::string(kThere) + "/device:cpu:0", dst + "/device:cpu:0", "w:0", 0, 0};
}

TEST(TaskOfTest, CutsTheDevice) {
  EXPECT_EQ(TaskOf("/job:ps/replica:0/task:1/device:cpu:0"), "/job:ps/replica:0/task:1");
  EXPECT_EQ(TaskOf("/job:ps/replica:0/task:1"), "/job:ps/replica:0/task:1");
}

TEST(NetRendezvousTest, LocalKeysStayLocalOthersArePushed) {
  std::vector<std::pair<std::string, TensorTransfer>> pushed;
  NetRendezvous r(kHere, 5, [&](const std::string& task, const TensorTransfer& t) {
    pushed.emplace_back(task, t);
    return Status::OK();
  });
  ASSERT_TRUE(r.Send(Key(kThere), Tensor::Scalar<float>(2), false).ok());
  ASSERT_EQ(pushed.size(), 1u);
  EXPECT_EQ(pushed[0].first, kThere);
  EXPECT_EQ(pushed[0].second.run_id, 5);
  EXPECT_EQ(pushed[0].second.value.scalar<float>(), 2.0f);

  ASSERT_TRUE(r.Send(Key(kHere), Tensor::Scalar<float>(3), false).ok());
  EXPECT_EQ(pushed.size(), 1u);
  float got = 0;
  r.RecvAsync(Key(kHere), [&](Status s, Tensor v, bool dead) {
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(dead);
    got = v.scalar<float>();
  });
  EXPECT_EQ(got, 3.0f);
}

TEST(RunRendezvousTableTest, DeliverBeforeRecvAndStragglers) {
  RunRendezvousTable table(kHere, [](const std::string&, const TensorTransfer&) { return Status::OK(); });
  TensorTransfer t;
  t.run_id = 9;
  t.src_device = std::string(kThere) + "/device:cpu:0";
  t.dst_device = std::string(kHere) + "/device:cpu:0";
  t.tensor_name = "w:0";
  t.value = Tensor::Scalar<int32_t>(7);
  ASSERT_TRUE(table.Deliver(TensorTransfer(t)).ok());  // before the step opened the run
  auto r = table.Open(9);
  ASSERT_TRUE(r.ok());
  int got = 0;
  RendezvousKey key{9, t.src_device, t.dst_device, "w:0", 0, 0};
  (*r)->RecvAsync(key, [&](Status s, Tensor v, bool) {
    ASSERT_TRUE(s.ok());
    got = v.scalar<int32_t>();
  });
  EXPECT_EQ(got, 7);
  table.Close(9);
  EXPECT_TRUE(table.Deliver(TensorTransfer(t)).ok());  // a straggler: dropped
  EXPECT_FALSE(table.Open(9).ok());

  TensorTransfer wrong = t;
  wrong.run_id = 10;
  wrong.dst_device = "/job:other/replica:0/task:0/device:cpu:0";
  EXPECT_FALSE(table.Deliver(std::move(wrong)).ok());
}

}  // namespace
}  // namespace tfg::net
