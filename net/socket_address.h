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

}  // namespace tfg::net
