// TransportLimits: the sockets kept to peers and to strangers stay within
// their caps however many addresses are sent to, and answers to strangers
// keep to their rate.
#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "net/transport.h"

namespace tfg::net {
namespace {

int OpenFds() {
  int n = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  while (readdir(dir) != nullptr) ++n;
  closedir(dir);
  return n;
}

// ZeroMQ closes sockets on its own reaper thread: on a loaded machine
// (CI's two cores under sanitizers) descriptors can take seconds to go.
// Waits up to 10 s for the count to fall to `limit`; returns the last count.
int OpenFdsAfterSettling(int limit) {
  int fds = OpenFds();
  for (int i = 0; i < 500 && fds > limit; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    fds = OpenFds();
  }
  return fds;
}

// The count once it has held still for 200 ms (at most 5 s).
int SettledFds() {
  int fds = OpenFds();
  for (int same = 0, i = 0; same < 10 && i < 250; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int now = OpenFds();
    same = now == fds ? same + 1 : 0;
    fds = now;
  }
  return fds;
}

Message Heartbeat() {
  Message m;
  m.kind = MessageKind::kHeartbeat;
  return m;
}

// 127.0.0.0/8 is loopback: nothing listens there on port 9, so each socket
// would keep reconnecting for as long as it is kept.
std::string Nowhere(int i) { return "tcp://127.0.1." + std::to_string(1 + i) + ":9"; }

TEST(TransportLimitsTest, PeersBeyondTheCapCloseTheLeastRecentlyUsed) {
  TransportLimits limits;
  limits.max_peers = 4;
  auto t = Transport::Start("tcp://127.0.0.1:0", [](Received&) {}, limits);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const int before = OpenFds();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE((*t)->Send(Nowhere(i), Heartbeat()).ok());
  // Each peer holds a socket, its monitor and a connection: 4 peers. A
  // socket closed to make room goes without lingering; ZeroMQ's own
  // threads take a moment to let its descriptors go.
  EXPECT_LE(OpenFdsAfterSettling(before + 16), before + 16);
  // A peer that was evicted is sent to again through a new socket.
  auto echo = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(echo.ok());
  EXPECT_TRUE((*t)->Send((*echo)->address(), Heartbeat()).ok());
}

TEST(TransportLimitsTest, AnswersToStrangersKeepToTheirRateAndSockets) {
  TransportLimits limits;
  limits.max_stranger_sockets = 2;
  limits.stranger_replies_per_second = 10;
  auto t = Transport::Start("tcp://127.0.0.1:0", [](Received&) {}, limits);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // ZeroMQ starts its threads, descriptors and all, with the first socket
  // (without CURVE the port is not one): they are there before counting.
  ASSERT_TRUE((*t)->Send(Nowhere(99), Heartbeat()).ok());
  (*t)->Forget(Nowhere(99));
  const int before = SettledFds();
  int sent = 0;
  for (int i = 0; i < 50; ++i) sent += (*t)->SendToStranger(Nowhere(i), Heartbeat()) ? 1 : 0;
  // The bucket holds 10; the loop takes well under the 100 ms that would
  // add one more.
  EXPECT_GE(sent, 10);
  EXPECT_LE(sent, 11);
  // Each answer's socket is closed at once and lingers 250 ms: at most two
  // at a time (the others over the cap are not sent), each with its
  // connection; then none.
  EXPECT_LE(OpenFdsAfterSettling(before + 8), before + 8);
  EXPECT_LE(OpenFdsAfterSettling(before), before);
}

}  // namespace
}  // namespace tfg::net
