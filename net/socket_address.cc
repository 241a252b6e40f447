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

bool SplitTcpAddress(const std::string& address, TcpHostPort* out) {
  const std::string rest = address.rfind("tcp://", 0) == 0 ? address.substr(6) : address;
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos) return false;
  out->host = rest.substr(0, colon);
  out->port = rest.substr(colon + 1);
  out->bracketed = out->host.size() >= 2 && out->host.front() == '[' && out->host.back() == ']';
  if (out->bracketed) out->host = out->host.substr(1, out->host.size() - 2);
  return true;
}

std::string PeerAddressOf(int fd) {
  sockaddr_storage peer{};
  socklen_t size = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0) return "";
  return TcpAddressOf(peer);
}

}  // namespace tfg::net
