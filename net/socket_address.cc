#include "net/socket_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <fmt/format.h>

namespace tfg::net {

std::string TcpAddressOf(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, host, sizeof(host));
    return fmt::format("tcp://{}:{}", host, ntohs(v4.sin_port));
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, host, sizeof(host));
    return fmt::format("tcp://[{}]:{}", host, ntohs(v6.sin6_port));
  }
  return "";
}

std::string PeerAddressOf(int fd) {
  sockaddr_storage peer{};
  socklen_t size = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return "";
  return TcpAddressOf(peer);
}

}  // namespace tfg::net
