// The local rendezvous: either side may come first, deadness travels,
// aborting ends every wait, and a key is used once.
#include "ops/core/rendezvous.h"

#include <gtest/gtest.h>

#include <optional>

namespace tfg {
namespace {

RendezvousKey Key(const std::string& name) {
  RendezvousKey k;
  k.step_id = 7;
  k.src_device = "/job:localhost/replica:0/task:0/device:cpu:0";
  k.dst_device = "/job:localhost/replica:0/task:0/device:cpu:1";
  k.tensor_name = name;
  return k;
}

struct Received {
  std::optional<Status> status;
  Tensor value;
  bool dead = false;
  Rendezvous::DoneCallback Callback() {
    return [this](Status s, Tensor v, bool d) {
      status = std::move(s);
      value = std::move(v);
      dead = d;
    };
  }
};

TEST(LocalRendezvousTest, SendFirstThenRecv) {
  LocalRendezvous r;
  ASSERT_TRUE(r.Send(Key("a:0"), Tensor::Scalar<float>(2.5f), false).ok());
  Received got;
  r.RecvAsync(Key("a:0"), got.Callback());
  ASSERT_TRUE(got.status.has_value());
  EXPECT_TRUE(got.status->ok());
  EXPECT_FLOAT_EQ(got.value.data<float>()[0], 2.5f);
  EXPECT_FALSE(got.dead);
}

TEST(LocalRendezvousTest, RecvWaitsForSendAndDeadnessTravels) {
  LocalRendezvous r;
  Received got;
  r.RecvAsync(Key("b:1"), got.Callback());
  EXPECT_FALSE(got.status.has_value());
  ASSERT_TRUE(r.Send(Key("b:1"), Tensor(), true).ok());
  ASSERT_TRUE(got.status.has_value());
  EXPECT_TRUE(got.status->ok());
  EXPECT_TRUE(got.dead);
  EXPECT_FALSE(got.value.IsInitialized());
}

TEST(LocalRendezvousTest, KeysDifferBySteps) {
  LocalRendezvous r;
  RendezvousKey other = Key("a:0");
  other.step_id = 8;
  ASSERT_TRUE(r.Send(Key("a:0"), Tensor::Scalar<float>(1), false).ok());
  Received got;
  r.RecvAsync(other, got.Callback());
  EXPECT_FALSE(got.status.has_value());
}

TEST(LocalRendezvousTest, AbortEndsWaitsAndLaterCalls) {
  LocalRendezvous r;
  Received waiting;
  r.RecvAsync(Key("c:0"), waiting.Callback());
  r.StartAbort(Error(Code::kCancelled, "stop"));
  ASSERT_TRUE(waiting.status.has_value());
  EXPECT_EQ(waiting.status->code(), Code::kCancelled);
  EXPECT_EQ(r.Send(Key("d:0"), Tensor::Scalar<float>(1), false).code(), Code::kCancelled);
  Received later;
  r.RecvAsync(Key("d:0"), later.Callback());
  ASSERT_TRUE(later.status.has_value());
  EXPECT_EQ(later.status->code(), Code::kCancelled);
}

TEST(LocalRendezvousTest, ASecondSendOfOneKeyFails) {
  LocalRendezvous r;
  ASSERT_TRUE(r.Send(Key("e:0"), Tensor::Scalar<float>(1), false).ok());
  EXPECT_FALSE(r.Send(Key("e:0"), Tensor::Scalar<float>(2), false).ok());
}

}  // namespace
}  // namespace tfg
