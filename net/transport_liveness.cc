// Connections to peers across a network that fails: a stalled connection
// is replaced, and how long a peer has been out of reach is known, so a
// partition (a cable pulled, a route dropped) is survived or reported
// rather than waited out. See net/transport.h (SetStalledConnectionSeconds).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <zmq.h>

#include <algorithm>
#include <cmath>

#include "net/steady_clock.h"
#include "net/transport.h"

namespace tfg::net {
namespace {

// TCP retransmits unacknowledged bytes with exponential backoff, so after a
// 20 s partition the next try may come 10 s after the network is back. With
// TCP_USER_TIMEOUT the kernel closes such a connection instead, and ZeroMQ
// connects again at once. By the time the monitor reports the connection,
// libzmq may have closed `fd` and the number gone to another file: only a
// TCP socket is touched (at worst another of our own connections gets the
// same bound).
void SetUserTimeout(int fd, int ms) {
  int type = 0;
  socklen_t size = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) return;
  unsigned int timeout = static_cast<unsigned int>(ms);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout, sizeof(timeout));
}

}  // namespace

void Transport::SetStalledConnectionSeconds(double seconds) {
  const int ms = static_cast<int>(std::lround(std::clamp(seconds, 0.0, 3600.0) * 1000));
  int old = stalled_connection_ms_.load();
  while (ms > old && !stalled_connection_ms_.compare_exchange_weak(old, ms)) {
  }
}

double Transport::UnreachableFor(const std::string& to) const {
  std::lock_guard<std::mutex> lock(problems_mu_);
  auto it = down_since_.find(to);
  if (it == down_since_.end()) return 0;
  return static_cast<double>(SteadyNowNs() - it->second) / 1e9;
}

// On the I/O thread, from the peer's monitor. A connection counts as up
// once its handshake succeeded (a TCP connection a CURVE handshake then
// fails on does not reach the peer).
bool Transport::OnConnectionEvent(const std::string& to, uint16_t event, uint32_t value) {
  if (event == ZMQ_EVENT_CONNECTED) {
    if (const int ms = stalled_connection_ms_.load(); ms > 0) SetUserTimeout(static_cast<int>(value), ms);
    outbound_[to] = Outbound{static_cast<int>(value), SteadyNowNs()};
    return true;
  }
  if (event == ZMQ_EVENT_DISCONNECTED) {
    outbound_.erase(to);
    WatchNewConnections();  // libzmq connects again within 100 ms
  }
  PeerLostHandler on_lost;
  {
    std::lock_guard<std::mutex> lock(problems_mu_);
    if (event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
      down_since_.erase(to);
      return false;  // also ends a run of broken handshakes (ReadMonitor)
    }
    if (event != ZMQ_EVENT_DISCONNECTED && event != ZMQ_EVENT_CONNECT_RETRIED) return false;
    down_since_.emplace(to, SteadyNowNs());  // keeps the first moment
    if (event == ZMQ_EVENT_DISCONNECTED) on_lost = on_peer_lost_;
  }
  if (on_lost) on_lost(to);
  return true;
}

void Transport::OnPeerLost(PeerLostHandler handler) {
  std::lock_guard<std::mutex> lock(problems_mu_);
  on_peer_lost_ = std::move(handler);
}

}  // namespace tfg::net
