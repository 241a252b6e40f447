#include "net/exposure.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "net/socket_address.h"

namespace tfg::net {

bool IsLoopbackAddress(const std::string& address) {
  TcpHostPort a;
  if (!SplitTcpAddress(address, &a)) return false;
  const std::string& host = a.host;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  // ::ffff:127.x.y.z, an IPv4 loopback address in IPv6 form.
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string ExposureWarning(const std::string& address, bool curve, Listener who) {
  if (curve || IsLoopbackAddress(address)) return "";
  const char* can = who == Listener::kWorker ? "can run graphs here" : "can send this master messages";
  return "warning: listening on " + address + " without CURVE: any host that can reach this port " + can +
         ". Turn CURVE on with `tfg keygen DIR` and --curve-keys DIR on every process (docs/distributed.md, "
         "\"Security\"), "
         "or listen on 127.0.0.1 only.";
}

}  // namespace tfg::net
