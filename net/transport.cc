#include "net/transport.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <vector>

#include "net/curve.h"
#include "net/protocol.h"
#include "net/refusal_log.h"
#include "net/steady_clock.h"
#include "net/zmtp_listener.h"

namespace tfg::net {
namespace {

std::atomic<int64_t> g_bytes_sent{0};
std::atomic<int64_t> g_bytes_received{0};

Status ZmqError(const std::string& what) {
  return Error(Code::kUnavailable, "{}: {}", what, zmq_strerror(zmq_errno()));
}

enum class Role { kServer, kClient };

void SetKey(void* socket, int option, const std::string& z85) {
  zmq_setsockopt(socket, option, z85.c_str(), z85.size());
}

// Every socket's options, the CURVE keys of its role among them.
// `linger_ms`: how long closing waits for queued frames to leave (a peer
// that is gone must not hold up the exit for long).
void ConfigureSocket(void* socket, Role role, int linger_ms) {
  const NetSettings& net = GetNetSettings();
  if (net.curve && role == Role::kServer) {
    int on = 1;
    zmq_setsockopt(socket, ZMQ_CURVE_SERVER, &on, sizeof(on));
    SetKey(socket, ZMQ_CURVE_SECRETKEY, net.keys.server_secret);
  } else if (net.curve) {
    SetKey(socket, ZMQ_CURVE_SERVERKEY, net.keys.server_public);
    SetKey(socket, ZMQ_CURVE_PUBLICKEY, net.keys.client_public);
    SetKey(socket, ZMQ_CURVE_SECRETKEY, net.keys.client_secret);
  }
  int linger = linger_ms;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof(linger));
  // A frame above the protocol's limit closes the connection before it is
  // read into memory (a message of several frames is held to the limit in
  // ReceiveAll). A DEALER is never read: what a peer sends back on it is
  // refused the same way, past ZeroMQ's own commands, and at most one
  // message of it is queued (the connection then stops being read).
  const bool server = role == Role::kServer;
  int64_t max_size = server ? static_cast<int64_t>(kMaxMessageBytes) : kMaxFrameFromPeer;
  zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof(max_size));
  int hwm = 100000, unread_hwm = 1;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof(hwm));
  zmq_setsockopt(socket, ZMQ_RCVHWM, server ? &hwm : &unread_hwm, sizeof(hwm));
}

bool AllDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

Result<std::string> NormalizeAddress(const std::string& address) {
  std::string rest = address.rfind("tcp://", 0) == 0 ? address.substr(6) : address;
  const size_t colon = rest.rfind(':');
  std::string host = colon == std::string::npos ? "" : rest.substr(0, colon);
  std::string port = colon == std::string::npos ? rest : rest.substr(colon + 1);
  if (host.empty()) host = "127.0.0.1";
  if (port == "0") port = "*";
  if (port != "*" && (!AllDigits(port) || port.size() > 5 || std::stoi(port) > 65535 || std::stoi(port) == 0)) {
    return InvalidArgument("'{}' is not an address: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7001", address);
  }
  if (host.find_first_of("/ ") != std::string::npos) {
    return InvalidArgument("'{}' is not an address: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7001", address);
  }
  return "tcp://" + host + ":" + port;
}

void LogNet(const std::string& line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::cerr << "tfg[net]: " << line << "\n" << std::flush;
}

Result<std::unique_ptr<Transport>> Transport::Start(const std::string& address, MessageHandler handler,
                                                    const TransportLimits& limits) {
  TFG_ASSIGN_OR_RETURN(std::string bind, NormalizeAddress(address));
  std::unique_ptr<Transport> t(new Transport());
  t->handler_ = std::move(handler);
  t->limits_ = limits;
  t->context_ = zmq_ctx_new();
  if (t->context_ == nullptr) return ZmqError("cannot create a ZeroMQ context");
  if (GetNetSettings().curve) {
    TFG_RETURN_IF_ERROR(t->StartRouter(bind));
  } else {
    TFG_ASSIGN_OR_RETURN(t->listener_, ZmtpListener::Listen(bind, limits));
    t->address_ = t->listener_->address();
  }
  t->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (t->wake_fd_ < 0) return Error(Code::kUnavailable, "eventfd: {}", std::strerror(errno));
  t->thread_ = std::thread([p = t.get()] { p->Loop(); });
  return t;
}

// With CURVE, libzmq's ROUTER reads the port (frames arrive encrypted).
Status Transport::StartRouter(const std::string& bind) {
  router_ = zmq_socket(context_, ZMQ_ROUTER);
  if (router_ == nullptr) return ZmqError("cannot create a socket");
  ConfigureSocket(router_, Role::kServer, 0);
  TFG_RETURN_IF_ERROR(StartSecurity());
  TFG_RETURN_IF_ERROR(WatchConnections());
  if (zmq_bind(router_, bind.c_str()) != 0) return ZmqError("cannot listen on " + bind);
  char endpoint[256] = {};
  size_t size = sizeof(endpoint);
  zmq_getsockopt(router_, ZMQ_LAST_ENDPOINT, endpoint, &size);
  address_ = endpoint;
  listen_port_ = std::atoi(address_.substr(address_.rfind(':') + 1).c_str());
  return Status::OK();
}

namespace {

// ZeroMQ's I/O thread sends a monitored socket's events with a blocking
// send, and a monitor whose reader is gone blocks it for good: nothing in
// the process is sent, received or closed after that. A socket closed
// while its connection is still being retried can report once more after
// zmq_close, so its monitor is stopped first (under the monitor's lock, so
// no event is on its way) and only then may the reader go.
void CloseMonitored(void* socket) {
  zmq_socket_monitor(socket, nullptr, 0);
  zmq_close(socket);
}

}  // namespace

Transport::~Transport() {
  stop_.store(true);
  if (wake_fd_ >= 0) Wake();
  if (thread_.joinable()) thread_.join();
  for (auto& [addr, peer] : peers_) CloseMonitored(peer.socket);
  if (router_ != nullptr) zmq_socket_monitor(router_, nullptr, 0);  // before its reader goes
  for (auto& [addr, socket] : monitors_) zmq_close(socket);
  if (router_monitor_ != nullptr) zmq_close(router_monitor_);
  for (void* socket : retired_monitors_) zmq_close(socket);
  if (zap_ != nullptr) zmq_close(zap_);
  if (router_ != nullptr) zmq_close(router_);
  if (context_ != nullptr) zmq_ctx_term(context_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void Transport::Wake() {
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd_, &one, sizeof(one));
  (void)ignored;
}

// Each sending thread encodes into a buffer of its own, kept from message
// to message, and ZeroMQ copies the head from there: a small message costs
// one allocation, as with zmq_send. A buffer grown past this by a rare
// large message is given back.
constexpr size_t kKeptEncodeBuffer = size_t{1} << 20;

Status Transport::Send(const std::string& to, const Message& m) {
  thread_local std::string buffer;
  std::vector<Tensor> attachments;
  TFG_ASSIGN_OR_RETURN(size_t size, EncodeMessage(m, buffer, attachments));
  SendFrames(to, std::string_view(buffer.data(), size), attachments);
  if (buffer.size() > kKeptEncodeBuffer) std::string().swap(buffer);
  return Status::OK();
}

void Transport::Send(const std::string& to, const EncodedMessage& message) {
  SendFrames(to, message.head, message.attachments);
}

void Transport::SendFrames(const std::string& to, std::string_view head, const std::vector<Tensor>& attachments) {
  bool created = false;
  {
    std::lock_guard<std::mutex> lock(sockets_mu_);
    void* socket = PeerSocket(to, &created);
    if (socket != nullptr) SendParts(socket, to, head, attachments);
  }
  if (created) Wake();  // the new peer's monitor joins the poll set
}

void Transport::Forget(const std::string& to) {
  std::lock_guard<std::mutex> lock(sockets_mu_);
  ClosePeer(to);
}

void Transport::ClosePeer(const std::string& to) {
  auto it = peers_.find(to);
  if (it == peers_.end()) return;
  CloseMonitored(it->second.socket);
  peers_.erase(it);
  auto m = monitors_.find(to);
  if (m != monitors_.end()) {
    retired_monitors_.push_back(m->second);
    monitors_changed_ = true;
    monitors_.erase(m);
  }
  std::lock_guard<std::mutex> problems_lock(problems_mu_);
  broken_handshakes_.erase(to);  // a socket made anew starts counting again
  down_since_.erase(to);
}

namespace {

int SocketFd(void* socket) {  // -1, which poll(2) passes over, for none
  int fd = -1;
  if (socket == nullptr) return fd;
  size_t size = sizeof(fd);
  zmq_getsockopt(socket, ZMQ_FD, &fd, &size);
  return fd;
}

// Asks ZeroMQ (which first takes in the socket's pending commands).
bool HasMessage(void* socket) {
  if (socket == nullptr) return false;
  int events = 0;
  size_t size = sizeof(events);
  return zmq_getsockopt(socket, ZMQ_EVENTS, &events, &size) == 0 && (events & ZMQ_POLLIN) != 0;
}

}  // namespace

// Sleeps in poll(2) on the file descriptors behind the sockets (ZMQ_FD),
// not in zmq_poll: zmq_poll asks every socket for its events, two system
// calls each, before and after every sleep, and nearly every wake-up is a
// message. A ZMQ_FD only says that its socket may have changed, and only
// until the socket is next used; so each socket is read until ZeroMQ
// reports it empty before the thread sleeps again. The ROUTER (CURVE) is
// read on every wake-up; the ZAP socket and the monitors only when their
// descriptor fires (or, for a monitor, when it is new). Without CURVE the
// port's own descriptors (ZmtpListener) come last, made anew each time.
void Transport::Loop() {
  std::vector<pollfd> fds;
  std::vector<std::pair<std::string, void*>> monitors;
  std::vector<std::string> outbound;  // the peers whose connections are polled
  // fds: the ROUTER, the wake-up, the connection monitor, [ZAP], monitors,
  // then the listener's (the ROUTER and its monitor are -1 without CURVE),
  // then the connections to peers (WatchReturnTraffic).
  const size_t first_monitor = zap_ != nullptr ? 4 : 3;
  size_t zmq_fds = 0;
  const auto deliver = [this](Received& message) { Deliver(message); };
  while (!stop_.load()) {
    bool rebuilt = false;
    {
      std::lock_guard<std::mutex> lock(sockets_mu_);
      for (void* retired : retired_monitors_) zmq_close(retired);
      retired_monitors_.clear();
      if (monitors_changed_ || fds.empty()) {
        monitors.assign(monitors_.begin(), monitors_.end());
        fds = {{SocketFd(router_), POLLIN, 0}, {wake_fd_, POLLIN, 0}, {SocketFd(router_monitor_), POLLIN, 0}};
        if (zap_ != nullptr) fds.push_back({SocketFd(zap_), POLLIN, 0});
        for (const auto& [to, monitor] : monitors) fds.push_back({SocketFd(monitor), POLLIN, 0});
        zmq_fds = fds.size();
        monitors_changed_ = false;
        rebuilt = true;
      }
    }
    if (rebuilt || (fds[2].revents & POLLIN)) {
      while (HasMessage(router_monitor_)) ReadConnectionEvent();
    }
    ReceiveAll();
    FlushRefusalLog();
    // While connections to peers are being made, every monitor is read on
    // every wake-up (a ZMQ_FD may not fire for an event that came while
    // the socket was last read), so that a connection's descriptor is
    // watched (WatchReturnTraffic) before a peer can stream much at it.
    const bool watching = SteadyNowNs() < watch_monitors_until_ns_.load();
    for (size_t i = 0; i < monitors.size(); ++i) {
      if (rebuilt || watching || (fds[first_monitor + i].revents & POLLIN)) {
        while (HasMessage(monitors[i].second)) ReadMonitor(monitors[i].first, monitors[i].second);
      }
    }
    if (zap_ != nullptr && (rebuilt || (fds[3].revents & POLLIN))) {
      while (HasMessage(zap_)) AnswerZap();
    }
    fds.resize(zmq_fds);
    if (listener_ != nullptr) listener_->AddPollFds(fds);
    const size_t outbound_first = fds.size();
    AddReturnTrafficFds(fds, outbound);
    if (poll(fds.data(), fds.size(), return_active_ || watching ? 1 : 200) < 0) {
      if (errno == EINTR) continue;  // fds' revents are not this poll's
      break;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t n;
      ssize_t ignored = read(wake_fd_, &n, sizeof(n));
      (void)ignored;
    }
    if (listener_ != nullptr) listener_->Serve(fds.data() + zmq_fds, outbound_first - zmq_fds, deliver);
    WatchReturnTraffic(fds.data() + outbound_first, outbound);
  }
}

// With CURVE: a message is [peer identity, head, attachments...]; one with
// no head, more frames than the protocol allows, or more bytes in all its
// frames than kMaxMessageBytes is dropped whole. Once a message is
// refused, each frame left is let go as soon as it is read.
void Transport::ReceiveAll() {
  if (router_ == nullptr) return;
  Frame identity;  // each receive into it releases the one before
  for (;;) {
    if (zmq_msg_recv(identity.msg(), router_, ZMQ_DONTWAIT) < 0) return;
    Received message;
    size_t frames = 0, bytes = 0;
    bool refused = false;
    bool more = zmq_msg_more(identity.msg());
    while (more) {
      // The head is received where the handler reads it; attachments each
      // into a frame of their own, shared with the tensor made from it.
      auto frame = frames == 0 || refused ? nullptr : std::make_shared<Frame>();
      Frame drained;
      Frame& part = frames == 0 ? message.head : refused ? drained : *frame;
      if (zmq_msg_recv(part.msg(), router_, ZMQ_DONTWAIT) < 0) break;
      more = zmq_msg_more(part.msg());
      bytes += part.size();
      ++frames;
      if (!refused && (bytes > kMaxMessageBytes || frames > kMaxAttachments + 1)) {
        refused = true;
        message = Received();  // the frames kept so far go now
      } else if (frames > 1 && !refused) {
        message.attachments.push_back(Attachment{frame->data(), frame->size(), frame});
      }
    }
    if (frames == 0 || refused) {
      LogRefusal(frames == 0 ? "a message with no head" : "an oversized message",
                 fmt::format("dropped a message of {} frames and {} bytes (a message may have a head and at most {} "
                             "attachments, of {} bytes in all)",
                             frames, bytes, kMaxAttachments, kMaxMessageBytes));
      continue;
    }
    Deliver(message);
  }
}

// Every message received, from the ROUTER or the listener, is counted for
// --stats here and handed on.
void Transport::Deliver(Received& message) {
  size_t bytes = message.head.size();
  for (const Attachment& a : message.attachments) bytes += a.size;
  g_bytes_received.fetch_add(static_cast<int64_t>(bytes));
  handler_(message);
}

static_assert(sizeof(zmq_msg_t) == 64 && alignof(zmq_msg_t) <= 8, "Frame holds a zmq_msg_t in 64 bytes");

Frame::Frame() { zmq_msg_init(msg()); }
Frame::~Frame() { zmq_msg_close(msg()); }
Frame::Frame(Frame&& o) noexcept {
  zmq_msg_init(msg());
  zmq_msg_move(msg(), o.msg());
}
Frame& Frame::operator=(Frame&& o) noexcept {
  zmq_msg_move(msg(), o.msg());  // closes what this held
  return *this;
}
Frame Frame::Adopt(char* data, size_t size, void (*release)(void* data, void* hint), void* hint) {
  Frame frame;
  if (data == nullptr) return frame;
  zmq_msg_close(frame.msg());
  // Out of memory for libzmq's small record of the buffer: the frame is
  // empty, which the decoder refuses like any malformed head.
  if (zmq_msg_init_data(frame.msg(), data, size, release, hint) != 0) {
    release(data, hint);
    zmq_msg_init(frame.msg());
  }
  return frame;
}
zmq_msg_t* Frame::msg() const { return reinterpret_cast<zmq_msg_t*>(const_cast<unsigned char*>(msg_)); }
char* Frame::data() const { return static_cast<char*>(zmq_msg_data(msg())); }
size_t Frame::size() const { return zmq_msg_size(msg()); }

void* Transport::PeerSocket(const std::string& to, bool* created) {
  auto it = peers_.find(to);
  if (it != peers_.end()) {
    it->second.last_used = ++use_clock_;
    return it->second.socket;
  }
  if (limits_.max_peers > 0 && peers_.size() >= limits_.max_peers) EvictLeastRecentPeer();
  void* socket = NewSocket(to);
  if (socket == nullptr) return nullptr;
  {
    // Handshake outcomes say why a peer never answers; connections made
    // and lost, whether it can be reached (transport_liveness.cc).
    const std::string name = "inproc://tfg-monitor-" + std::to_string(next_monitor_++);
    const int events = ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                       ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                       ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CONNECT_RETRIED;
    void* monitor = zmq_socket(context_, ZMQ_PAIR);
    if (monitor != nullptr && zmq_socket_monitor(socket, name.c_str(), events) == 0 &&
        zmq_connect(monitor, name.c_str()) == 0) {
      monitors_[to] = monitor;
      monitors_changed_ = true;
      *created = true;
      WatchNewConnections();
    } else if (monitor != nullptr) {
      zmq_socket_monitor(socket, nullptr, 0);  // in case it started: no reader will come
      zmq_close(monitor);
    }
  }
  if (zmq_connect(socket, to.c_str()) != 0) {
    LogRefusal("a bad peer address", "cannot connect to " + to + ": " + zmq_strerror(zmq_errno()));
    CloseMonitored(socket);
    if (auto m = monitors_.find(to); m != monitors_.end()) {
      zmq_close(m->second);  // not yet polled: the I/O thread learns of it only from `created`
      monitors_.erase(m);
    }
    *created = false;
    return nullptr;
  }
  peers_[to] = Peer{socket, ++use_clock_};
  return socket;
}

// A DEALER with this process's options, not yet connected. When ZeroMQ
// or the system has no socket to give (ZMQ_MAX_SOCKETS, file
// descriptors), the messages for `to` are dropped, and that is logged.
void* Transport::NewSocket(const std::string& to) {
  void* socket = zmq_socket(context_, ZMQ_DEALER);
  if (socket == nullptr) {
    LogRefusal("no socket to give",
               fmt::format("cannot open a socket to {} ({} peers open): {}: its messages are dropped", to,
                           peers_.size(), zmq_strerror(zmq_errno())));
    return nullptr;
  }
  ConfigureSocket(socket, Role::kClient, 200);
  // A connect that hangs (a partitioned peer drops the SYN) is given up
  // after a second and tried again, rather than waiting out TCP's SYN
  // backoff: the first attempt after the network heals connects.
  int connect_timeout_ms = 1000;
  zmq_setsockopt(socket, ZMQ_CONNECT_TIMEOUT, &connect_timeout_ms, sizeof(connect_timeout_ms));
  // libzmq connects over IPv4 only unless told otherwise; only a bracketed
  // IPv6 address is, so that a name keeps resolving to the IPv4 address
  // its peer listens on.
  if (to.find('[') != std::string::npos) {
    const int ipv6 = 1;
    zmq_setsockopt(socket, ZMQ_IPV6, &ipv6, sizeof(ipv6));
  }
  return socket;
}

namespace {

// The head is copied into a message of ZeroMQ's own (the bytes are the
// sender's buffer, reused); a tensor's buffer is sent where it lies, and
// the hint keeps it alive until it is sent.
bool InitPart(zmq_msg_t* msg, std::string_view head) {
  if (zmq_msg_init_size(msg, head.size()) != 0) return false;
  std::memcpy(zmq_msg_data(msg), head.data(), head.size());
  return true;
}
bool InitPart(zmq_msg_t* msg, const Tensor& t) {
  auto* owned = new std::shared_ptr<Buffer>(t.buffer());
  if (zmq_msg_init_data(msg, t.raw_data(), t.bytes(),
                        [](void*, void* hint) { delete static_cast<std::shared_ptr<Buffer>*>(hint); }, owned) == 0) {
    return true;
  }
  delete owned;
  return false;
}

}  // namespace

// The parts go as one message or not at all (ZeroMQ rolls back a
// multipart message it cannot finish). Each part is made just before it
// is sent, so a failure leaves only that one to close.
void Transport::SendParts(void* socket, const std::string& to, std::string_view head,
                          const std::vector<Tensor>& attachments) {
  size_t bytes = head.size();
  const size_t last = attachments.size();
  for (size_t i = 0; i <= last; ++i) {
    zmq_msg_t part;
    if (!(i == 0 ? InitPart(&part, head) : InitPart(&part, attachments[i - 1]))) {
      LogNet("dropped a message to " + to + ": " + zmq_strerror(zmq_errno()));
      // Parts already sent would join the next message: an empty last
      // frame ends this one, which the receiver then refuses.
      if (i > 0) zmq_send(socket, nullptr, 0, ZMQ_DONTWAIT);
      return;
    }
    if (i > 0) bytes += attachments[i - 1].bytes();
    if (zmq_msg_send(&part, socket, ZMQ_DONTWAIT | (i < last ? ZMQ_SNDMORE : 0)) < 0) {
      LogNet("dropped a message to " + to + ": " + zmq_strerror(zmq_errno()));
      zmq_msg_close(&part);  // frees what it holds
      return;
    }
  }
  g_bytes_sent.fetch_add(static_cast<int64_t>(bytes));
}

TrafficCount NetworkTraffic() { return {g_bytes_sent.load(), g_bytes_received.load()}; }

std::string NetworkTrafficReport() {
  const TrafficCount t = NetworkTraffic();
  if (t.bytes_sent == 0 && t.bytes_received == 0) return "";
  constexpr double kMiB = 1024.0 * 1024.0;
  return fmt::format("network: {:.2f} MiB sent, {:.2f} MiB received ({} and {} bytes){}\n", t.bytes_sent / kMiB,
                     t.bytes_received / kMiB, t.bytes_sent, t.bytes_received,
                     GetNetSettings().compress_transfers ? " (f32 transfers compressed to 16 bits)" : "");
}

}  // namespace tfg::net
