#include "net/transport.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

namespace tfg::net {
namespace {

TEST(NormalizeAddressTest, LoopbackByDefault) {
  EXPECT_EQ(*NormalizeAddress("tcp://127.0.0.1:7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress(":7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress("7001"), "tcp://127.0.0.1:7001");
  EXPECT_EQ(*NormalizeAddress("tcp://:0"), "tcp://127.0.0.1:*");
  EXPECT_FALSE(NormalizeAddress("tcp://127.0.0.1:x").ok());
  EXPECT_FALSE(NormalizeAddress("tcp://127.0.0.1:70000").ok());
  EXPECT_EQ(NormalizeAddress("nope").status().message(),
            "'nope' is not an address: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7001");
}

// Two transports on free loopback ports send each other frames.
TEST(TransportTest, FramesArriveInOrder) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> got;
  auto a = Transport::Start("tcp://127.0.0.1:0", [&](Frame f) {
    std::lock_guard<std::mutex> lock(mu);
    got.emplace_back(std::string_view(f));
    cv.notify_all();
  });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = Transport::Start("tcp://127.0.0.1:0", [](Frame) {});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NE((*a)->address().find("tcp://127.0.0.1:"), std::string::npos);
  const std::string big(1 << 20, 'x');
  (*b)->Send((*a)->address(), "one");
  (*b)->Send((*a)->address(), "");
  (*b)->Send((*a)->address(), big);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return got.size() == 3; }));
  EXPECT_EQ(got[0], "one");
  EXPECT_EQ(got[1], "");
  EXPECT_EQ(got[2], big);
}

TEST(TransportTest, ABusyPortIsAnError) {
  auto a = Transport::Start("tcp://127.0.0.1:0", [](Frame) {});
  ASSERT_TRUE(a.ok());
  auto b = Transport::Start((*a)->address(), [](Frame) {});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("cannot listen on " + (*a)->address()), std::string::npos)
      << b.status().message();
}

}  // namespace
}  // namespace tfg::net
