#include "net/zmtp_listener.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "net/refusal_log.h"
#include "net/socket_address.h"
#include "net/steady_clock.h"

namespace tfg::net {
namespace {

int64_t Ns(double seconds) { return static_cast<int64_t>(seconds * 1e9); }

// What one connection may read in one Serve before the others get a turn.
constexpr size_t kReadPerTurn = 8 << 20;
// Bytes this process sends on a connection are its handshake and PONGs; a
// peer that lets more than this pile up unread is not a libzmq peer.
constexpr size_t kMaxUnsent = 64 << 10;
// After accept(2) found no descriptor left, how long the listening socket
// rests (polling it meanwhile would return at once, again and again).
constexpr double kAcceptPauseSeconds = 0.1;

// "tcp://HOST:PORT" into what getaddrinfo takes.
TcpHostPort BindAddress(const std::string& address) {
  TcpHostPort a;
  if (!SplitTcpAddress(address, &a)) {  // getaddrinfo says what is wrong with it
    a.host = address.rfind("tcp://", 0) == 0 ? address.substr(6) : address;
  }
  if (a.host == "*") a.host = "0.0.0.0";
  if (a.port == "*") a.port = "0";
  return a;
}

Result<int> BindAndListen(const addrinfo& ai) {
  const int fd = socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return Error(Code::kUnavailable, "{}", std::strerror(errno));
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (bind(fd, ai.ai_addr, ai.ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
    const int error = errno;
    close(fd);
    return Error(Code::kUnavailable, "{}", std::strerror(error));
  }
  return fd;
}

}  // namespace

struct ZmtpListener::Connection {
  Connection(const ZmtpLimits& limits, std::string from) : peer(std::move(from)), reader(limits, peer) {}
  int fd = -1;
  std::string peer;  // "tcp://IP:PORT", for the log
  ZmtpReader reader;
  std::string unsent;
  int64_t accepted_ns = 0, heard_ns = 0, pinged_ns = 0;
  bool closing = false;
};

Result<std::unique_ptr<ZmtpListener>> ZmtpListener::Listen(const std::string& address, const TransportLimits& limits,
                                                           const ZmtpLimits& message_limits) {
  const TcpHostPort bind = BindAddress(address);
  const std::string &host = bind.host, &port = bind.port;
  // IPv4 first, as libzmq resolves a name ("localhost" may also be ::1,
  // where a peer connecting by the same name would not look); IPv6 for a
  // bracketed address or a name with no IPv4 address.
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    hints.ai_family = AF_INET6;
    rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  }
  if (rc != 0) return Error(Code::kUnavailable, "cannot listen on {}: {}", address, gai_strerror(rc));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> owned(found, freeaddrinfo);
  Result<int> fd = Error(Code::kUnavailable, "no address");
  for (const addrinfo* ai = found; ai != nullptr && !fd.ok(); ai = ai->ai_next) fd = BindAndListen(*ai);
  if (!fd.ok()) return Error(Code::kUnavailable, "cannot listen on {}: {}", address, fd.status().message());
  std::unique_ptr<ZmtpListener> listener(new ZmtpListener());
  listener->listen_fd_ = *fd;
  listener->limits_ = limits;
  listener->message_limits_ = message_limits;
  sockaddr_storage bound{};
  socklen_t size = sizeof(bound);
  getsockname(*fd, reinterpret_cast<sockaddr*>(&bound), &size);
  listener->address_ = TcpAddressOf(bound);
  return listener;
}

ZmtpListener::~ZmtpListener() {
  for (const auto& c : connections_) close(c->fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

void ZmtpListener::AddPollFds(std::vector<pollfd>& fds) const {
  const bool paused = accept_paused_until_ns_ > SteadyNowNs();
  fds.push_back({paused ? -1 : listen_fd_, POLLIN, 0});  // poll(2) passes over a negative descriptor
  for (const auto& c : connections_) {
    fds.push_back({c->fd, static_cast<short>(c->unsent.empty() ? POLLIN : POLLIN | POLLOUT), 0});
  }
}

void ZmtpListener::Serve(const pollfd* fds, size_t count, const std::function<void(Received&)>& deliver) {
  if (count == 0) return;  // AddPollFds always appends the listening socket
  const int64_t now = SteadyNowNs();
  const size_t polled = std::min(count - 1, connections_.size());
  for (size_t i = 0; i < polled; ++i) {
    Connection& c = *connections_[i];
    if (fds[1 + i].revents & (POLLIN | POLLHUP | POLLERR)) Read(c, now, deliver);
    if (!c.closing && (fds[1 + i].revents & POLLOUT)) Flush(c);
  }
  for (auto& c : connections_) {
    if (!c->closing) CheckTimes(*c, now);
    if (c->closing) {
      close(c->fd);
      c.reset();
    }
  }
  connections_.erase(std::remove(connections_.begin(), connections_.end(), nullptr), connections_.end());
  if (fds[0].revents & POLLIN) Accept(now);
}

void ZmtpListener::Accept(int64_t now_ns) {
  for (;;) {
    sockaddr_storage from{};
    socklen_t size = sizeof(from);
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &size, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        LogRefusal("a connection with no descriptor left",
                   fmt::format("cannot accept a connection: {}", std::strerror(errno)));
        accept_paused_until_ns_ = now_ns + Ns(kAcceptPauseSeconds);
      }
      return;  // EAGAIN: none left to accept
    }
    if (limits_.max_connections > 0 && connections_.size() >= static_cast<size_t>(limits_.max_connections)) {
      close(fd);
      LogRefusal("a connection over the cap",
                 fmt::format("refused a connection: {} are open already (the limit)", connections_.size()));
      continue;
    }
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    auto c = std::make_unique<Connection>(message_limits_, TcpAddressOf(from));
    c->fd = fd;
    c->accepted_ns = c->heard_ns = c->pinged_ns = now_ns;
    Send(*c, ZmtpServerHello());
    connections_.push_back(std::move(c));
  }
}

// Reads until the socket has nothing more (or the connection has had its
// turn), handing each message on as soon as it is complete.
void ZmtpListener::Read(Connection& c, int64_t now_ns, const std::function<void(Received&)>& deliver) {
  std::vector<Received> messages;
  std::string reply;
  for (size_t read = 0; read < kReadPerTurn && !c.closing;) {
    Status status;
    try {
      const ZmtpReader::Space space = c.reader.NextSpace();
      const ssize_t n = recv(c.fd, space.data, space.size, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {  // closed by the peer, or reset
        c.closing = true;
        return;
      }
      read += static_cast<size_t>(n);
      c.heard_ns = now_ns;
      status = c.reader.Take(static_cast<size_t>(n), messages, reply);
      for (Received& m : messages) deliver(m);
      messages.clear();
      if (static_cast<size_t>(n) < space.size) read = kReadPerTurn;  // drained: spare a recv that finds nothing
    } catch (const std::bad_alloc&) {
      status = Error(Code::kResourceExhausted, "out of memory while reading its message");
    }
    if (!reply.empty()) Send(c, std::exchange(reply, {}));
    if (!status.ok()) {
      LogRefusal("a connection that broke ZeroMQ's protocol",
                 fmt::format("closed the connection from {}: it {}", c.peer, status.message()));
      c.closing = true;
    }
  }
}

void ZmtpListener::Send(Connection& c, std::string_view bytes) {
  c.unsent.append(bytes);
  Flush(c);
  if (c.unsent.size() > kMaxUnsent) {
    LogRefusal("a connection that does not read",
               fmt::format("closed the connection from {}: it left {} bytes of ours unread", c.peer, c.unsent.size()));
    c.closing = true;
  }
}

void ZmtpListener::Flush(Connection& c) {
  while (!c.unsent.empty()) {
    const ssize_t n = send(c.fd, c.unsent.data(), c.unsent.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      c.closing = true;
      return;
    }
    c.unsent.erase(0, static_cast<size_t>(n));
  }
}

void ZmtpListener::CheckTimes(Connection& c, int64_t now_ns) {
  if (!c.reader.ready()) {
    if (now_ns - c.accepted_ns > Ns(limits_.handshake_seconds)) {
      LogRefusal("a connection without a handshake",
                 fmt::format("closed the connection from {}: no ZeroMQ handshake within {} s", c.peer,
                             limits_.handshake_seconds));
      c.closing = true;
    }
    return;
  }
  if (now_ns - c.heard_ns > Ns(limits_.silent_seconds)) {
    LogRefusal("a silent connection", fmt::format("closed the connection from {}: nothing came from it for {} s",
                                                  c.peer, limits_.silent_seconds));
    c.closing = true;
  } else if (now_ns - c.heard_ns >= Ns(limits_.ping_seconds) && now_ns - c.pinged_ns >= Ns(limits_.ping_seconds)) {
    c.pinged_ns = now_ns;
    Send(c, ZmtpPing());
  }
}

}  // namespace tfg::net
