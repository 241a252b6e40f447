#include "net/transport.h"

#include <sys/eventfd.h>
#include <unistd.h>
#include <zmq.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iostream>

#include "net/protocol.h"

namespace tfg::net {
namespace {

Status ZmqError(const std::string& what) {
  return Error(Code::kUnavailable, "{}: {}", what, zmq_strerror(zmq_errno()));
}

// Every socket's options. CURVE keys would be set here. `linger_ms`: how
// long closing waits for queued frames to leave (a peer that is gone must
// not hold up the exit for long).
void ConfigureSocket(void* socket, int linger_ms) {
  int linger = linger_ms;
  zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof(linger));
  // A frame above the protocol's limit closes the connection before it is
  // read into memory.
  int64_t max_size = static_cast<int64_t>(kMaxMessageBytes);
  zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &max_size, sizeof(max_size));
  int hwm = 100000;
  zmq_setsockopt(socket, ZMQ_SNDHWM, &hwm, sizeof(hwm));
  zmq_setsockopt(socket, ZMQ_RCVHWM, &hwm, sizeof(hwm));
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

Result<std::unique_ptr<Transport>> Transport::Start(const std::string& address, FrameHandler handler) {
  TFG_ASSIGN_OR_RETURN(std::string bind, NormalizeAddress(address));
  std::unique_ptr<Transport> t(new Transport());
  t->handler_ = std::move(handler);
  t->context_ = zmq_ctx_new();
  if (t->context_ == nullptr) return ZmqError("cannot create a ZeroMQ context");
  t->router_ = zmq_socket(t->context_, ZMQ_ROUTER);
  if (t->router_ == nullptr) return ZmqError("cannot create a socket");
  ConfigureSocket(t->router_, 0);
  if (zmq_bind(t->router_, bind.c_str()) != 0) return ZmqError("cannot listen on " + bind);
  char endpoint[256] = {};
  size_t size = sizeof(endpoint);
  zmq_getsockopt(t->router_, ZMQ_LAST_ENDPOINT, endpoint, &size);
  t->address_ = endpoint;
  t->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (t->wake_fd_ < 0) return Error(Code::kUnavailable, "eventfd: {}", std::strerror(errno));
  t->thread_ = std::thread([p = t.get()] { p->Loop(); });
  return t;
}

Transport::~Transport() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof(one));
    (void)ignored;
  }
  if (thread_.joinable()) thread_.join();
  for (auto& [addr, socket] : peers_) zmq_close(socket);
  if (router_ != nullptr) zmq_close(router_);
  if (context_ != nullptr) zmq_ctx_term(context_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void Transport::Send(const std::string& to, std::string frame) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    outbox_.emplace_back(to, std::move(frame));
  }
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd_, &one, sizeof(one));
  (void)ignored;
}

void Transport::Forget(const std::string& to) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    forget_.push_back(to);
  }
  uint64_t one = 1;
  ssize_t ignored = write(wake_fd_, &one, sizeof(one));
  (void)ignored;
}

void Transport::Loop() {
  while (!stop_.load()) {
    zmq_pollitem_t items[2] = {{router_, 0, ZMQ_POLLIN, 0}, {nullptr, wake_fd_, ZMQ_POLLIN, 0}};
    if (zmq_poll(items, 2, 200) < 0 && zmq_errno() != EINTR) break;
    if (items[1].revents & ZMQ_POLLIN) {
      uint64_t count;
      ssize_t ignored = read(wake_fd_, &count, sizeof(count));
      (void)ignored;
    }
    SendQueued();
    if (items[0].revents & ZMQ_POLLIN) ReceiveAll();
  }
  SendQueued();  // what was queued before the stop (a goodbye) still goes
}

// A frame is [peer identity, payload]; anything else is dropped.
void Transport::ReceiveAll() {
  for (;;) {
    std::vector<std::string> parts;
    int more = 1;
    while (more) {
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      if (zmq_msg_recv(&msg, router_, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        if (parts.empty()) return;
        break;
      }
      parts.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
      more = zmq_msg_more(&msg);
      zmq_msg_close(&msg);
    }
    frames_received_.fetch_add(1);
    if (parts.size() != 2) {
      LogNet("dropped a message of " + std::to_string(parts.size()) + " parts (expected one frame)");
      continue;
    }
    handler_(std::move(parts[1]));
  }
}

void* Transport::PeerSocket(const std::string& to) {
  auto it = peers_.find(to);
  if (it != peers_.end()) return it->second;
  void* socket = zmq_socket(context_, ZMQ_DEALER);
  if (socket == nullptr) return nullptr;
  ConfigureSocket(socket, 200);
  if (zmq_connect(socket, to.c_str()) != 0) {
    LogNet("cannot connect to " + to + ": " + zmq_strerror(zmq_errno()));
    zmq_close(socket);
    return nullptr;
  }
  peers_[to] = socket;
  return socket;
}

void Transport::SendQueued() {
  std::deque<std::pair<std::string, std::string>> out;
  std::deque<std::string> forget;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(outbox_);
    forget.swap(forget_);
  }
  for (const std::string& to : forget) {
    auto it = peers_.find(to);
    if (it == peers_.end()) continue;
    zmq_close(it->second);
    peers_.erase(it);
  }
  for (auto& [to, frame] : out) {
    void* socket = PeerSocket(to);
    if (socket == nullptr) continue;
    if (zmq_send(socket, frame.data(), frame.size(), ZMQ_DONTWAIT) < 0) {
      LogNet("dropped a frame to " + to + ": " + zmq_strerror(zmq_errno()));
    }
  }
}

}  // namespace tfg::net
