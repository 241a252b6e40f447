// The ZeroMQ transport: one ROUTER socket per process receives every
// message; one DEALER socket per peer address sends to it. Messages go one
// way (a reply is a message to the sender's `reply_to`), so request/reply
// matching is the protocol's business (request ids), not the socket's.
// One I/O thread owns every socket (ZeroMQ sockets are not thread-safe);
// other threads queue frames with Send and wake it through an eventfd.
//
// Where to extend: socket options for every socket (CURVE keys:
// ZMQ_CURVE_SERVER / ZMQ_CURVE_SECRETKEY on the ROUTER, ZMQ_CURVE_SERVERKEY
// and the client keys on DEALERs) go in ConfigureSocket in transport.cc,
// the one place sockets are set up. Payload compression belongs to the
// tensor codec (net/wire.cc, SaveTensor/LoadTensor), not here.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include "ops/framework/status.h"

namespace tfg::net {

// "tcp://HOST:PORT"; a bare ":PORT", "PORT" or "tcp://:PORT" binds the
// loopback address; port 0 or * picks a free one. Errors name the text.
Result<std::string> NormalizeAddress(const std::string& address);

// One line on stderr, prefixed "tfg[net]: " (worker logs, refused frames).
void LogNet(const std::string& line);

class Transport {
 public:
  // Runs on the I/O thread with each frame received, in order; it must not
  // block (hand long work to another thread).
  using FrameHandler = std::function<void(std::string frame)>;

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

 private:
  Transport() = default;
  void Loop();
  void ReceiveAll();
  void SendQueued();
  void* PeerSocket(const std::string& to);

  void* context_ = nullptr;
  void* router_ = nullptr;
  int wake_fd_ = -1;
  std::string address_;
  FrameHandler handler_;
  std::mutex mu_;
  std::deque<std::pair<std::string, std::string>> outbox_;  // (to, frame); guarded by mu_
  std::deque<std::string> forget_;                          // guarded by mu_
  std::unordered_map<std::string, void*> peers_;            // I/O thread only
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> frames_received_{0};
  std::thread thread_;
};

}  // namespace tfg::net
