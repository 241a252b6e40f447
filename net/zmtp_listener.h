// This process's port when CURVE is off: a listening TCP socket and the
// connections it accepted, each read by a ZmtpReader (net/zmtp_reader.h)
// on the Transport's I/O thread, in place of libzmq's ROUTER. Peers still
// send with libzmq's DEALER and cannot tell the difference; what changes
// is that every limit on what a peer can make this process hold is
// enforced as the bytes arrive (TransportLimits, ZmtpLimits), and each
// refusal is logged (net/refusal_log.h).
//
// With CURVE on, frames arrive encrypted and libzmq's ROUTER reads them
// (net/transport.cc); CURVE refuses an unknown client before reading any
// of its frames.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/received.h"
#include "net/transport_limits.h"
#include "net/zmtp_reader.h"
#include "ops/core/status.h"

namespace tfg::net {

class ZmtpListener {
 public:
  // Listens on `address`, "tcp://HOST:PORT" as NormalizeAddress gives it:
  // HOST an IPv4 address, a bracketed IPv6 one, a name, or * (every IPv4
  // interface); PORT * for a free one.
  static Result<std::unique_ptr<ZmtpListener>> Listen(const std::string& address, const TransportLimits& limits,
                                                      const ZmtpLimits& message_limits = {});
  ~ZmtpListener();
  ZmtpListener(const ZmtpListener&) = delete;
  ZmtpListener& operator=(const ZmtpListener&) = delete;

  // The bound address with its port: "tcp://127.0.0.1:41234".
  const std::string& address() const { return address_; }
  size_t connections() const { return connections_.size(); }

  // Appends what to wait for: the listening socket, then each connection.
  void AddPollFds(std::vector<pollfd>& fds) const;
  // Acts on what poll(2) reported for the `count` descriptors AddPollFds
  // appended (starting at `fds`), then on each connection's time limits.
  // Every message completed goes to `deliver`, in order.
  void Serve(const pollfd* fds, size_t count, const std::function<void(Received&)>& deliver);

 private:
  struct Connection;
  ZmtpListener() = default;
  void Accept(int64_t now_ns);
  void Read(Connection& c, int64_t now_ns, const std::function<void(Received&)>& deliver);
  void Send(Connection& c, std::string_view bytes);
  void Flush(Connection& c);
  void CheckTimes(Connection& c, int64_t now_ns);

  int listen_fd_ = -1;
  std::string address_;
  TransportLimits limits_;
  ZmtpLimits message_limits_;
  int64_t accept_paused_until_ns_ = 0;  // no descriptor was left to accept with
  std::vector<std::unique_ptr<Connection>> connections_;
};

}  // namespace tfg::net
