// ZmtpListener, through a Transport without CURVE, against raw TCP peers:
// the time limits on a connection (handshake, silence after a PING) and
// the cap on connections. Messages themselves: zmtp_reader_test.cc and
// transport_test.cc.
#include "net/zmtp_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "net/transport.h"

namespace tfg::net {
namespace {

int PortOf(const std::string& address) { return std::stoi(address.substr(address.rfind(':') + 1)); }

// A raw connection to the transport's port.
struct Peer {
  int fd = -1;
  explicit Peer(const std::string& address) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(PortOf(address)));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
  }
  ~Peer() { close(fd); }
  void Send(const std::string& bytes) const {
    EXPECT_EQ(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  // What arrives within `seconds`, until the connection closes; `closed`
  // says whether it did.
  std::string ReadFor(double seconds, bool* closed) const {
    std::string got;
    *closed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      char buffer[4096];
      const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        *closed = true;
        return got;
      }
      got.append(buffer, static_cast<size_t>(n));
    }
    return got;
  }
};

// The client's half of the handshake: greeting (ZMTP 3.1, NULL), READY of
// a DEALER (rfc.zeromq.org/spec/37).
std::string DealerHandshake() {
  std::string greeting(64, '\0');
  greeting[0] = '\xff';
  greeting[9] = '\x7f';
  greeting[10] = 3;
  greeting[11] = 1;
  greeting.replace(12, 4, "NULL");
  const std::string ready = std::string("\x05READY\x0bSocket-Type\0\0\0\x06", 22) + "DEALER";
  return greeting + "\x04" + static_cast<char>(ready.size()) + ready;
}

const std::string kPing = std::string("\x04\x07\x04PING\0\0", 9);

std::unique_ptr<Transport> Start(const TransportLimits& limits) {
  auto t = Transport::Start("tcp://127.0.0.1:0", [](Received&) {}, limits);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : nullptr;
}

TransportLimits PingAfter(double ping_seconds, double silent_seconds) {
  TransportLimits limits;
  limits.ping_seconds = ping_seconds;
  limits.silent_seconds = silent_seconds;
  return limits;
}

TEST(ZmtpListenerTest, ASilentPeerIsPingedThenClosed) {
  auto t = Start(PingAfter(0.3, 1.2));
  ASSERT_NE(t, nullptr);
  Peer peer(t->address());
  peer.Send(DealerHandshake());
  bool closed = false;
  const std::string got = peer.ReadFor(0.9, &closed);
  EXPECT_FALSE(closed);
  EXPECT_EQ(got.substr(0, 64), ZmtpServerHello().substr(0, 64));
  EXPECT_NE(got.find(kPing), std::string::npos) << "no PING after 0.3 s of silence";
  peer.ReadFor(5, &closed);
  EXPECT_TRUE(closed) << "still open 6 s after its last byte (limit 1.2 s)";
}

TEST(ZmtpListenerTest, APeerThatAnswersStaysConnected) {
  auto t = Start(PingAfter(0.2, 0.8));
  ASSERT_NE(t, nullptr);
  Peer peer(t->address());
  peer.Send(DealerHandshake());
  bool closed = false;
  for (int i = 0; i < 8 && !closed; ++i) {
    peer.ReadFor(0.25, &closed);
    peer.Send(std::string("\x04\x05\x04PONG", 7));
  }
  EXPECT_FALSE(closed);
}

TEST(ZmtpListenerTest, APeerWithoutAHandshakeIsClosed) {
  TransportLimits limits;
  limits.handshake_seconds = 0.3;
  auto t = Start(limits);
  ASSERT_NE(t, nullptr);
  Peer peer(t->address());
  peer.Send(std::string("\xff\0\0", 3));  // a greeting begun, never finished
  bool closed = false;
  peer.ReadFor(5, &closed);
  EXPECT_TRUE(closed);
}

TEST(ZmtpListenerTest, ConnectionsBeyondTheCapAreClosedAtOnce) {
  TransportLimits limits;
  limits.max_connections = 2;
  auto t = Start(limits);
  ASSERT_NE(t, nullptr);
  Peer a(t->address()), b(t->address());
  bool closed = false;
  a.ReadFor(0.2, &closed);  // both accepted before the third comes
  Peer c(t->address());
  c.ReadFor(3, &closed);
  EXPECT_TRUE(closed);
  a.ReadFor(0.1, &closed);
  EXPECT_FALSE(closed);
}

// A bracketed IPv6 address is listened on over IPv6, and a peer's socket
// reaches it (libzmq connects over IPv6 only when told to).
TEST(ZmtpListenerTest, AnIpv6PortIsReachedOverIpv6) {
  std::atomic<int> got{0};
  auto a = Transport::Start("tcp://[::1]:0", [&](Received&) { ++got; });
  if (!a.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << a.status().message();
  EXPECT_EQ((*a)->address().rfind("tcp://[::1]:", 0), 0u) << (*a)->address();
  auto b = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(b.ok()) << b.status().message();
  (*b)->Send((*a)->address(), std::string_view("head"));
  for (int i = 0; i < 250 && got.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(got.load(), 1);
}

// A name is listened on at its IPv4 address, where libzmq connects by it.
TEST(ZmtpListenerTest, ANameListensOnItsIpv4Address) {
  auto l = ZmtpListener::Listen("tcp://localhost:*", {});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ((*l)->address().rfind("tcp://127.0.0.1:", 0), 0u) << (*l)->address();
}

TEST(ZmtpListenerTest, AnAddressInUseIsAnError) {
  auto first = ZmtpListener::Listen("tcp://127.0.0.1:*", {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto second = ZmtpListener::Listen((*first)->address(), {});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot listen on " + (*first)->address()), std::string::npos)
      << second.status().message();
}

}  // namespace
}  // namespace tfg::net
