// Addresses of TCP sockets as the transport writes them: "tcp://IP:PORT",
// an IPv6 address in brackets (the form NormalizeAddress and ZeroMQ use).
#pragma once

#include <sys/socket.h>

#include <string>

namespace tfg::net {

// "tcp://10.0.0.7:51234", "tcp://[::1]:7001"; "" for another family.
std::string TcpAddressOf(const sockaddr_storage& address);
// The address of the other end of the connection `fd`; "" when it has none.
std::string PeerAddressOf(int fd);

// "tcp://HOST:PORT" ("tcp://" optional) split at its last colon, an IPv6
// HOST's brackets taken off ("tcp://[::1]:7001": "::1", "7001", bracketed).
struct TcpHostPort {
  std::string host, port;
  bool bracketed = false;
};
// False when there is no colon.
bool SplitTcpAddress(const std::string& address, TcpHostPort* out);

}  // namespace tfg::net
