// TcpAddressOf / PeerAddressOf: the transport's "tcp://IP:PORT" form.
#include "net/socket_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <unistd.h>

namespace tfg::net {
namespace {

TEST(SocketAddressTest, Ipv4AndIpv6AreWrittenAsZeroMqWritesThem) {
  sockaddr_storage a{};
  auto& v4 = reinterpret_cast<sockaddr_in&>(a);
  v4 = {AF_INET, htons(7001), {}, {}};
  inet_pton(AF_INET, "10.0.0.7", &v4.sin_addr);
  EXPECT_EQ(TcpAddressOf(a), "tcp://10.0.0.7:7001");
  sockaddr_storage b{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(b);
  v6 = {AF_INET6, htons(443), 0, in6addr_loopback, 0};
  EXPECT_EQ(TcpAddressOf(b), "tcp://[::1]:443");
  sockaddr_storage unix_socket{};
  unix_socket.ss_family = AF_UNIX;
  EXPECT_EQ(TcpAddressOf(unix_socket), "");
}

TEST(SocketAddressTest, ThePeerOfAConnectionIsItsListener) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&at), sizeof(at)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t size = sizeof(at);
  getsockname(listener, reinterpret_cast<sockaddr*>(&at), &size);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&at), sizeof(at)), 0);
  EXPECT_EQ(PeerAddressOf(client), "tcp://127.0.0.1:" + std::to_string(ntohs(at.sin_port)));
  EXPECT_EQ(PeerAddressOf(listener), "");  // not connected
  close(client);
  close(listener);
}

TEST(SocketAddressTest, AnAddressSplitsAtItsLastColon) {
  TcpHostPort a;
  ASSERT_TRUE(SplitTcpAddress("tcp://10.0.0.7:7001", &a));
  EXPECT_EQ(a.host, "10.0.0.7");
  EXPECT_EQ(a.port, "7001");
  EXPECT_FALSE(a.bracketed);
  ASSERT_TRUE(SplitTcpAddress("tcp://[::ffff:127.0.0.1]:*", &a));
  EXPECT_EQ(a.host, "::ffff:127.0.0.1");
  EXPECT_EQ(a.port, "*");
  EXPECT_TRUE(a.bracketed);
  ASSERT_TRUE(SplitTcpAddress("db7:80", &a));  // "tcp://" may be left out
  EXPECT_EQ(a.host, "db7");
  EXPECT_FALSE(SplitTcpAddress("tcp://db7", &a));
}

}  // namespace
}  // namespace tfg::net
