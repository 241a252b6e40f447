// The ZeroMQ transport: one ROUTER socket per process receives every
// message; one DEALER socket per peer address sends to it. Messages go one
// way (a reply is a message to the sender's `reply_to`), so request/reply
// matching is the protocol's business (request ids), not the socket's.
// One I/O thread owns every socket (ZeroMQ sockets are not thread-safe);
// other threads queue frames with Send and wake it through an eventfd.
//
// With CURVE on (net/curve.h, GetNetSettings()), the ROUTER is a CURVE
// server, every DEALER a CURVE client, and the I/O thread also answers the
// ZAP requests (inproc://zeromq.zap.01) that accept or refuse each client
// key. A monitor on each DEALER records why a handshake with that peer
// failed (PeerProblem), so a refused master says "not authorized" instead
// of only timing out. Payload compression belongs to the tensor codec
// (net/wire.cc), not here.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ops/framework/status.h"

struct zmq_msg_t;  // zmq.h stays out of this header

namespace tfg::net {

// "tcp://HOST:PORT"; a bare ":PORT", "PORT" or "tcp://:PORT" binds the
// loopback address; port 0 or * picks a free one. Errors name the text.
Result<std::string> NormalizeAddress(const std::string& address);

// One line on stderr, prefixed "tfg[net]: " (worker logs, refused frames).
void LogNet(const std::string& line);

// Bytes this process put on and took off the wire (every Transport's
// frames, payloads only), for --stats.
struct TrafficCount {
  int64_t bytes_sent = 0, bytes_received = 0;
};
TrafficCount NetworkTraffic();
// "network: 1.2 MiB sent, 0.4 MiB received" (plus the compression note), or
// "" when this process used no network.
std::string NetworkTrafficReport();

// A received frame, left in ZeroMQ's buffer (a large tensor is not copied
// once more on its way to the decoder).
class Frame {
 public:
  Frame();
  ~Frame();
  Frame(Frame&& o) noexcept;
  Frame& operator=(Frame&&) = delete;
  Frame(const Frame&) = delete;
  const char* data() const;
  size_t size() const;
  operator std::string_view() const { return {data(), size()}; }

 private:
  friend class Transport;
  ::zmq_msg_t* msg_;
};

class Transport {
 public:
  // Runs on the I/O thread with each frame received, in order; it must not
  // block (hand long work to another thread).
  using FrameHandler = std::function<void(Frame frame)>;

  // Binds the ROUTER socket to `address` (NormalizeAddress) and starts the
  // I/O thread.
  static Result<std::unique_ptr<Transport>> Start(const std::string& address, FrameHandler handler);
  // Sends what is queued, stops the thread, and waits up to 200 ms for
  // frames to leave; frames for peers that are gone are dropped.
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // The bound address, with the chosen port: "tcp://127.0.0.1:41234".
  const std::string& address() const { return address_; }
  // Queues `frame` for the peer listening at `to`. Never blocks; a peer
  // that is gone loses its frames (heartbeats find that out).
  void Send(const std::string& to, std::string frame);
  // Closes the socket to `to`, dropping what is queued for it.
  void Forget(const std::string& to);
  // Frames received and refused (by the handler's own count) so far.
  int64_t frames_received() const { return frames_received_.load(); }
  // Why the last handshake with the peer at `to` failed ("" when none did):
  // "refused the connection: not authorized", ...
  std::string PeerProblem(const std::string& to) const;

 private:
  Transport() = default;
  void Loop();
  void ReceiveAll();
  void SendQueued();
  void* PeerSocket(const std::string& to);
  Status StartSecurity();
  void AnswerZap();
  void ReadMonitor(const std::string& to, void* monitor);

  void* context_ = nullptr;
  void* router_ = nullptr;
  int wake_fd_ = -1;
  std::string address_;
  FrameHandler handler_;
  std::mutex mu_;
  std::deque<std::pair<std::string, std::string>> outbox_;  // (to, frame); guarded by mu_
  std::deque<std::string> forget_;                          // guarded by mu_
  std::unordered_map<std::string, void*> peers_;            // I/O thread only
  std::unordered_map<std::string, void*> monitors_;         // peer address -> its monitor; I/O thread only
  void* zap_ = nullptr;                                     // the ZAP handler socket (CURVE only)
  std::unordered_set<std::string> authorized_;              // binary client keys
  std::unordered_set<std::string> refused_logged_;          // I/O thread only
  int next_monitor_ = 0;
  mutable std::mutex problems_mu_;
  std::unordered_map<std::string, std::string> problems_;  // guarded by problems_mu_
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> frames_received_{0};
  std::thread thread_;
};

}  // namespace tfg::net
