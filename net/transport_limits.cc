// The parts of Transport that bound what peers can make it hold
// (TransportLimits): accepted connections (with CURVE; without it,
// net/zmtp_listener.cc), sockets kept to peers, what comes back on them,
// and the answers to strangers.
#include <arpa/inet.h>
#include <linux/tcp.h>  // tcp_info with tcpi_bytes_received (glibc's lacks it)
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <zmq.h>

#include <algorithm>
#include <cstring>

#include "net/refusal_log.h"
#include "net/socket_address.h"
#include "net/steady_clock.h"
#include "net/transport.h"

namespace tfg::net {

// ------------------------------------------------------------ connections

// With CURVE (libzmq's ROUTER reads the port): the ROUTER's monitor
// reports each connection accepted and each one that ended, with its file
// descriptor. Heartbeats close a connection whose peer stops answering
// ZeroMQ's pings: a machine that vanished without closing its
// connections, or a peer that speaks ZMTP by hand and then sits (libzmq
// answers pings itself, so a live tfg peer always does). libzmq counts a
// frame as an answer only once it has arrived whole, so the timeout leaves
// a 1 GiB frame time to cross a slow network (300 s: about 3.5 MB/s).
Status Transport::WatchConnections() {
  const int handshake_ms = static_cast<int>(limits_.handshake_seconds * 1000);
  const int heartbeat_ms = static_cast<int>(limits_.ping_seconds * 1000);
  const int heartbeat_timeout_ms = static_cast<int>((limits_.silent_seconds - limits_.ping_seconds) * 1000);
  zmq_setsockopt(router_, ZMQ_HANDSHAKE_IVL, &handshake_ms, sizeof(handshake_ms));
  zmq_setsockopt(router_, ZMQ_HEARTBEAT_IVL, &heartbeat_ms, sizeof(heartbeat_ms));
  zmq_setsockopt(router_, ZMQ_HEARTBEAT_TIMEOUT, &heartbeat_timeout_ms, sizeof(heartbeat_timeout_ms));
  const std::string name = "inproc://tfg-connections-" + std::to_string(reinterpret_cast<uintptr_t>(this));
  if (zmq_socket_monitor(router_, name.c_str(), ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0) {
    return Error(Code::kUnavailable, "cannot watch the connections: {}", zmq_strerror(zmq_errno()));
  }
  router_monitor_ = zmq_socket(context_, ZMQ_PAIR);
  if (router_monitor_ == nullptr || zmq_connect(router_monitor_, name.c_str()) != 0) {
    return Error(Code::kUnavailable, "cannot watch the connections: {}", zmq_strerror(zmq_errno()));
  }
  return Status::OK();
}

namespace {

// Whether `fd` is a connection accepted on `port`: by the time its event is
// read, libzmq may have closed it and the number gone to another file.
bool IsAcceptedOn(int fd, int port) {
  sockaddr_storage local{};
  socklen_t size = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) return false;
  if (local.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port) == port;
  if (local.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port) == port;
  return false;
}

}  // namespace

// A connection over the cap is shut down (not closed: the descriptor is
// libzmq's, which then sees the connection end and closes it).
void Transport::ReadConnectionEvent() {
  zmq_msg_t event_msg, address_msg;
  zmq_msg_init(&event_msg);
  zmq_msg_init(&address_msg);
  const bool got = zmq_msg_recv(&event_msg, router_monitor_, ZMQ_DONTWAIT) >= 0 && zmq_msg_more(&event_msg) &&
                   zmq_msg_recv(&address_msg, router_monitor_, ZMQ_DONTWAIT) >= 0;
  uint16_t event = 0;
  uint32_t fd = 0;
  if (got && zmq_msg_size(&event_msg) >= 6) {
    std::memcpy(&event, zmq_msg_data(&event_msg), 2);
    std::memcpy(&fd, static_cast<char*>(zmq_msg_data(&event_msg)) + 2, 4);
  }
  const std::string peer(static_cast<const char*>(zmq_msg_data(&address_msg)), zmq_msg_size(&address_msg));
  zmq_msg_close(&event_msg);
  zmq_msg_close(&address_msg);
  const int socket_fd = static_cast<int>(fd);
  if (event == ZMQ_EVENT_DISCONNECTED) {
    connections_.erase(socket_fd);
    return;
  }
  if (event != ZMQ_EVENT_ACCEPTED) return;
  if (limits_.max_connections <= 0 || connections_.size() < static_cast<size_t>(limits_.max_connections)) {
    connections_.insert(socket_fd);
    return;
  }
  if (!IsAcceptedOn(socket_fd, listen_port_)) return;
  shutdown(socket_fd, SHUT_RDWR);
  LogRefusal("a connection over the cap",
             fmt::format("refused a connection: {} are open already (the limit)", connections_.size()));
}

// ------------------------------------------------------------ peer sockets

namespace {

// A socket closed to make room goes at once, with what it still holds:
// lingering, each would keep its descriptors for a while, and a storm of
// new addresses would pile them up.
void CloseNow(void* socket) {
  const int linger = 0;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof(linger));
  zmq_close(socket);
}

}  // namespace

// The peer sent to longest ago loses its socket (what it still held to
// send is dropped: it is the one least in use); a later message to it
// makes a new one.
void Transport::EvictLeastRecentPeer() {
  auto oldest = std::min_element(peers_.begin(), peers_.end(),
                                 [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
  if (oldest == peers_.end()) return;
  LogRefusal("a peer over the cap", fmt::format("closed the socket to {}, the least recently used of {} peers (the "
                                                "limit)",
                                                oldest->first, peers_.size()));
  const std::string to = oldest->first;
  const int linger = 0;
  zmq_setsockopt(oldest->second.socket, ZMQ_LINGER, &linger, sizeof(linger));
  ClosePeer(to);
}

// ------------------------------------------------ what comes back to us

namespace {

// Peers answer on their own connections, so what comes back on one this
// process made is ZeroMQ's handshake (a few hundred bytes with CURVE) and
// its heartbeats (a PING every 30 s of silence, under 100 bytes). libzmq
// would queue the frames of a message that never ends there without
// limit (ZMQ_RCVHWM counts whole messages), so the kernel's count of the
// bytes received is checked against what the handshake and heartbeats
// could have sent by now.
constexpr uint64_t kReturnBytes = 16 << 10;
constexpr double kReturnBytesPerMinute = 256;
// Every connection, resting or not, is looked at once a second, and every
// kReturnActiveCheckNs while bytes are coming back on any of them: libzmq
// reads a connection as fast as bytes come, so poll(2) often finds
// nothing left to say it has input (a stream of empty frames went on for
// a second, 6 MB, before a once-a-second look saw it).
constexpr int64_t kReturnCheckNs = 1000000000;
constexpr int64_t kReturnActiveCheckNs = 2000000;
constexpr int64_t kReturnRestNs = 100000000;

// Whether `fd` is still a TCP connection to the peer at `to`: libzmq may
// have closed it since its monitor spoke, and the number gone elsewhere.
// An address by name ("tcp://db7:7001") is taken on its port alone.
bool IsConnectionTo(int fd, const std::string& to) {
  const std::string peer = PeerAddressOf(fd);
  if (peer.empty() || peer == to) return !peer.empty();
  TcpHostPort want, got;
  if (!SplitTcpAddress(to, &want) || !SplitTcpAddress(peer, &got)) return false;
  in_addr v4{};
  if (want.host.empty() || want.bracketed || inet_pton(AF_INET, want.host.c_str(), &v4) == 1) {
    return false;  // numeric, and not it
  }
  return got.port == want.port;
}

}  // namespace

// Each connection to a peer is polled for input alongside libzmq (which
// reads it), so bytes coming back are counted as they come: a stream of
// empty frames fills memory 30 times faster than the wire. A connection
// whose input sits unread (libzmq stops reading past one whole message)
// would make poll return at once, again and again, so it rests
// kReturnRestNs once its count stops moving.
void Transport::AddReturnTrafficFds(std::vector<pollfd>& fds, std::vector<std::string>& polled) {
  polled.clear();
  const int64_t now_ns = SteadyNowNs();
  for (const auto& [to, connection] : outbound_) {
    if (connection.resting_until_ns > now_ns) continue;
    fds.push_back({connection.fd, POLLIN, 0});
    polled.push_back(to);
  }
}

void Transport::WatchReturnTraffic(const pollfd* fds, const std::vector<std::string>& polled) {
  const int64_t now_ns = SteadyNowNs();
  const bool sweep = now_ns - return_checked_ns_ >= (return_active_ ? kReturnActiveCheckNs : kReturnCheckNs);
  if (sweep) {
    return_checked_ns_ = now_ns;
    return_active_ = false;  // until a count is seen moving
  }
  for (size_t i = 0; i < polled.size(); ++i) {
    auto it = outbound_.find(polled[i]);
    if (it != outbound_.end() && (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) && !sweep) {
      CheckReturnTraffic(it, now_ns);
    }
  }
  for (auto it = outbound_.begin(); sweep && it != outbound_.end();) it = CheckReturnTraffic(it, now_ns);
}

// A connection over its allowance is shut down: libzmq then frees what it
// queued from it and connects again.
std::unordered_map<std::string, Transport::Outbound>::iterator Transport::CheckReturnTraffic(
    std::unordered_map<std::string, Outbound>::iterator it, int64_t now_ns) {
  const auto& [to, connection] = *it;
  tcp_info info{};
  socklen_t size = sizeof(info);
  if (!IsConnectionTo(connection.fd, to) || getsockopt(connection.fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0 ||
      size < offsetof(tcp_info, tcpi_bytes_received) + sizeof(info.tcpi_bytes_received)) {
    return outbound_.erase(it);
  }
  const double minutes = static_cast<double>(now_ns - connection.connected_ns) / 60e9;
  const auto allowed = kReturnBytes + static_cast<uint64_t>(minutes * kReturnBytesPerMinute);
  if (info.tcpi_bytes_received <= allowed) {
    if (info.tcpi_bytes_received == it->second.bytes_received) {
      it->second.resting_until_ns = now_ns + kReturnRestNs;
    } else {
      return_active_ = true;
    }
    it->second.bytes_received = info.tcpi_bytes_received;
    return std::next(it);
  }
  shutdown(connection.fd, SHUT_RDWR);
  LogRefusal("a peer sending back on our connection",
             fmt::format("closed the connection to {}: {} bytes came back on it, where only ZeroMQ's handshake and "
                         "heartbeats come (at most {} by now)",
                         to, info.tcpi_bytes_received, allowed));
  return outbound_.erase(it);
}

// -------------------------------------------------------------- strangers

namespace {

}  // namespace

// A bucket of stranger_replies_per_second replies, refilled at that rate.
bool Transport::TakeStrangerReply(int64_t now_ns) {
  const double rate = limits_.stranger_replies_per_second;
  stranger_tokens_ =
      stranger_refilled_ns_ == 0
          ? rate
          : std::min(rate, stranger_tokens_ + static_cast<double>(now_ns - stranger_refilled_ns_) * 1e-9 * rate);
  stranger_refilled_ns_ = now_ns;
  if (stranger_tokens_ < 1) return false;
  stranger_tokens_ -= 1;
  return true;
}

// Whether fewer than max_stranger_sockets closed sockets may still be
// lingering (ZeroMQ does not say when one is done: it is counted for the
// whole of kStrangerLingerMs).
bool Transport::StrangerSocketsLeft(int64_t now_ns) {
  const int64_t linger_ns = int64_t{kStrangerLingerMs} * 1000000;
  while (!strangers_closed_ns_.empty() && now_ns - strangers_closed_ns_.front() >= linger_ns) {
    strangers_closed_ns_.pop_front();
  }
  return strangers_closed_ns_.size() < std::max<size_t>(limits_.max_stranger_sockets, 1);
}

// A stranger's socket has no monitor: why its handshake failed is of no use.
void* Transport::StrangerSocket(const std::string& to) {
  void* socket = NewSocket(to);
  if (socket == nullptr) return nullptr;
  if (zmq_connect(socket, to.c_str()) != 0) {
    LogRefusal("a bad peer address", "cannot connect to " + to + ": " + zmq_strerror(zmq_errno()));
    CloseNow(socket);
    return nullptr;
  }
  return socket;
}

// The answer is queued, then its socket closed at once: ZeroMQ still
// connects and delivers it for up to kStrangerLingerMs, but a closed
// socket's queue takes no frame in, so a stranger that listens at the
// reply address and streams frames back (an unfinished message's frames
// are not held to any limit) is not read; its connection closes once the
// answer has left.
bool Transport::SendToStranger(const std::string& to, const Message& m) {
  EncodedMessage encoded;
  if (auto e = EncodeMessage(m); e.ok()) {
    encoded = std::move(*e);
  } else {
    LogNet("cannot encode a reply: " + e.status().message());
    return true;  // not a matter of rate
  }
  std::lock_guard<std::mutex> lock(sockets_mu_);
  if (auto it = peers_.find(to); it != peers_.end()) {
    it->second.last_used = ++use_clock_;
    SendParts(it->second.socket, to, encoded.head, encoded.attachments);
    return true;
  }
  const int64_t now = SteadyNowNs();
  if (!TakeStrangerReply(now)) return false;
  if (!StrangerSocketsLeft(now)) {
    LogRefusal("an answer to a stranger over the socket cap",
               fmt::format("did not answer {}: {} answers to strangers are still leaving (the limit)", to,
                           strangers_closed_ns_.size()));
    return true;  // logged here: not a matter of rate
  }
  void* socket = StrangerSocket(to);
  if (socket == nullptr) return true;
  SendParts(socket, to, encoded.head, encoded.attachments);
  const int linger = kStrangerLingerMs;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof(linger));
  zmq_close(socket);
  strangers_closed_ns_.push_back(now);
  return true;
}

}  // namespace tfg::net
