// The ZeroMQ transport: each process listens on one port, which receives
// every message; one DEALER socket per peer address sends to it. Messages
// go one way (a reply is a message to the sender's `reply_to`), so
// request/reply matching is the protocol's business (request ids), not
// the socket's. A message is a multipart ZeroMQ message: the head, then
// one frame per attached tensor (net/protocol.h), sent from and received
// into tensor buffers without a copy. The port is read by tfg's own
// reader of ZeroMQ's wire protocol (net/zmtp_listener.h), which holds
// every message to its limits as it arrives; with CURVE, by a ROUTER.
//
// ZeroMQ sockets are not thread-safe. The I/O thread owns the port and
// the monitors; the DEALERs are shared under one mutex, so Send hands a
// message to ZeroMQ on the caller's own thread (a hop through the I/O
// thread would cost two wake-ups per message).
//
// With CURVE on (net/curve.h, GetNetSettings()), the ROUTER is a CURVE
// server, every DEALER a CURVE client, and the I/O thread also answers the
// ZAP requests (inproc://zeromq.zap.01) that accept or refuse each client
// key. A monitor on each DEALER records why a handshake with that peer
// failed (PeerProblem), so a refused master says "not authorized" instead
// of only timing out. Payload compression belongs to the tensor codec
// (net/wire.cc), not here.
//
// What a peer can make a process hold is bounded (TransportLimits): the
// connections accepted, the sockets kept to peers, the bytes of one
// message, and the sockets that answer strangers (SendToStranger). Each
// refusal is logged through net/refusal_log.h.
#pragma once

#include <poll.h>

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
#include <vector>

#include "net/protocol.h"
#include "net/received.h"
#include "net/steady_clock.h"
#include "net/transport_limits.h"
#include "ops/core/status.h"

namespace tfg::net {

class ZmtpListener;

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

// How long a closed socket to a stranger may take to connect and deliver
// its answer (ZMQ_LINGER). A connection that takes longer loses it.
inline constexpr int kStrangerLingerMs = 250;

// The largest frame a peer may send back on a connection this process
// made (ZMQ_MAXMSGSIZE of each DEALER): nothing but ZeroMQ's own commands
// (handshake, heartbeats, a few hundred bytes) ever comes that way, since
// peers answer on their own connections to this process's ROUTER. A
// larger frame closes the connection before it is read into memory.
inline constexpr int64_t kMaxFrameFromPeer = 64 << 10;

class Transport {
 public:
  // Runs on the I/O thread with each message received, in order, and may
  // take what it keeps from it; it must not block (hand long work to
  // another thread).
  using MessageHandler = std::function<void(Received& message)>;

  // Binds the ROUTER socket to `address` (NormalizeAddress) and starts the
  // I/O thread.
  static Result<std::unique_ptr<Transport>> Start(const std::string& address, MessageHandler handler,
                                                  const TransportLimits& limits = {});
  // Stops the thread and waits up to 200 ms for messages to leave (250 ms
  // for answers to strangers); messages for peers that are gone are
  // dropped.
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // The bound address, with the chosen port: "tcp://127.0.0.1:41234".
  const std::string& address() const { return address_; }
  // Encodes `m` and hands it to ZeroMQ for the peer listening at `to`
  // (connecting to it first if need be). Never blocks; a peer that is gone
  // loses its messages (heartbeats find that out). Fails only when `m`
  // cannot be encoded. Any thread.
  Status Send(const std::string& to, const Message& m);
  // An encoded message, or a head of any bytes (tests).
  void Send(const std::string& to, const EncodedMessage& message);
  void Send(const std::string& to, std::string_view head) { SendFrames(to, head, {}); }
  // A reply to a peer this process keeps no state for (a refused Hello):
  // sent from a socket closed at once (TransportLimits), so that neither a
  // storm of Hellos naming a thousand reply addresses nor a stranger that
  // listens at its reply address and streams frames back leaves anything
  // behind. At most stranger_replies_per_second of them (false: not sent,
  // over that rate); one over max_stranger_sockets is logged and not sent.
  // Uses the peer's own socket when it has one.
  bool SendToStranger(const std::string& to, const Message& m);
  // Closes the socket to `to`, dropping what is queued for it.
  void Forget(const std::string& to);
  // Why the last handshake with the peer at `to` failed ("" when none did):
  // "refused the connection: not authorized", ...
  std::string PeerProblem(const std::string& to) const;
  // Called on the I/O thread when a peer refuses the connection for a
  // reason that trying again cannot mend (this process's key is not
  // authorized there; CURVE on one side only), with its address and
  // PeerProblem's text, so a caller need not wait out its timeout.
  using RefusalHandler = std::function<void(const std::string& to, const std::string& problem)>;
  void OnRefusal(RefusalHandler handler);

  // Liveness of the connections to peers (net/transport_liveness.cc).
  // A connection whose sent bytes go unacknowledged for `seconds` is
  // closed and made again (TCP_USER_TIMEOUT), so that traffic resumes as
  // soon as a partitioned network heals instead of after TCP's backoff;
  // only ever raised (the longest any caller needs), and 0 (the default)
  // leaves TCP's own. Callers keep it above the time after which they
  // treat a silent peer as dead, since what the closed connection held is
  // lost.
  void SetStalledConnectionSeconds(double seconds);
  // How long this process has been unable to connect to the peer at `to`
  // (0 while connected, or never tried).
  double UnreachableFor(const std::string& to) const;
  // Called on the I/O thread when an established connection to the peer
  // at `to` ends (the peer died, or a stalled connection was closed):
  // what the connection still held is lost. It must not block.
  using PeerLostHandler = std::function<void(const std::string& to)>;
  void OnPeerLost(PeerLostHandler handler);

 private:
  Transport() = default;
  Status StartRouter(const std::string& bind);
  void Loop();
  void Wake();
  void ReceiveAll();
  void Deliver(Received& message);
  void* PeerSocket(const std::string& to, bool* created);  // needs sockets_mu_
  void* NewSocket(const std::string& to);                  // needs sockets_mu_
  void ClosePeer(const std::string& to);                   // needs sockets_mu_
  void EvictLeastRecentPeer();                             // needs sockets_mu_
  bool TakeStrangerReply(int64_t now_ns);                  // needs sockets_mu_
  bool StrangerSocketsLeft(int64_t now_ns);                // needs sockets_mu_
  void* StrangerSocket(const std::string& to);             // needs sockets_mu_
  Status WatchConnections();
  void ReadConnectionEvent();
  void SendFrames(const std::string& to, std::string_view head, const std::vector<Tensor>& attachments);
  void SendParts(void* socket, const std::string& to, std::string_view head,
                 const std::vector<Tensor>& attachments);  // needs sockets_mu_
  Status StartSecurity();
  void AnswerZap();
  void ReadMonitor(const std::string& to, void* monitor);
  // Closes each connection to a peer on which more comes back than
  // ZeroMQ's handshake and heartbeats (net/transport_limits.cc).
  void AddReturnTrafficFds(std::vector<pollfd>& fds, std::vector<std::string>& polled);
  void WatchReturnTraffic(const pollfd* fds, const std::vector<std::string>& polled);
  // A connection of the DEALER to `to` made, lost or retried; false for
  // any other event.
  bool OnConnectionEvent(const std::string& to, uint16_t event, uint32_t value);

  void* context_ = nullptr;
  // The port: tfg's own reader of ZeroMQ's wire protocol, or with CURVE
  // libzmq's ROUTER (net/zmtp_listener.h says why).
  std::unique_ptr<ZmtpListener> listener_;
  void* router_ = nullptr;
  int wake_fd_ = -1;
  std::string address_;
  MessageHandler handler_;
  std::mutex sockets_mu_;
  TransportLimits limits_;
  struct Peer {
    void* socket = nullptr;  // the DEALER
    uint64_t last_used = 0;  // use_clock_ when last sent to
  };
  std::unordered_map<std::string, Peer> peers_;  // guarded by sockets_mu_
  uint64_t use_clock_ = 0;                       // guarded by sockets_mu_
  // When (steady ns) each socket to a stranger that may still be lingering
  // was closed, oldest first; guarded by sockets_mu_.
  std::deque<int64_t> strangers_closed_ns_;
  double stranger_tokens_ = 0;         // replies that may go now; guarded by sockets_mu_
  int64_t stranger_refilled_ns_ = 0;   // steady clock; guarded by sockets_mu_
  // The ROUTER's monitor (accepted and closed connections), and the file
  // descriptors of the connections open now; I/O thread only.
  void* router_monitor_ = nullptr;
  std::unordered_set<int> connections_;
  int listen_port_ = 0;  // the bound port: an accepted connection's local port
  std::unordered_map<std::string, void*> monitors_;  // peer address -> its monitor; guarded by sockets_mu_
  // Each peer's connection as its monitor reported it; I/O thread only.
  struct Outbound {
    int fd = -1;
    int64_t connected_ns = 0;      // steady clock
    uint64_t bytes_received = 0;   // at the last look
    int64_t resting_until_ns = 0;  // not polled until then
  };
  std::unordered_map<std::string, Outbound> outbound_;
  std::unordered_map<std::string, Outbound>::iterator CheckReturnTraffic(
      std::unordered_map<std::string, Outbound>::iterator it, int64_t now_ns);
  int64_t return_checked_ns_ = 0;  // steady clock; I/O thread only
  // Bytes came back at the last look: the I/O thread sleeps 1 ms, not
  // 200, so that WatchReturnTraffic looks again soon; I/O thread only.
  bool return_active_ = false;
  // Until then (steady ns) a connection to a peer may be about to be made
  // (a socket new, or its connection lost): the I/O thread reads every
  // monitor on every wake-up and sleeps 1 ms. Any thread.
  std::atomic<int64_t> watch_monitors_until_ns_{0};
  void WatchNewConnections() { watch_monitors_until_ns_.store(SteadyNowNs() + 1000000000); }
  // Monitors of forgotten peers, for the I/O thread (which may be polling
  // them) to close; guarded by sockets_mu_.
  std::vector<void*> retired_monitors_;
  bool monitors_changed_ = false;  // since the I/O thread last read monitors_; guarded by sockets_mu_
  void* zap_ = nullptr;                                     // the ZAP handler socket (CURVE only)
  std::unordered_set<std::string> authorized_;              // binary client keys
  int next_monitor_ = 0;
  mutable std::mutex problems_mu_;
  std::unordered_map<std::string, std::string> problems_;  // guarded by problems_mu_
  // Handshakes each peer broke off since its last good one; guarded by problems_mu_.
  std::unordered_map<std::string, int> broken_handshakes_;
  RefusalHandler on_refusal_;                              // guarded by problems_mu_
  std::atomic<int> stalled_connection_ms_{0};
  // Since when (steady ns) each peer has had no connection; guarded by problems_mu_.
  std::unordered_map<std::string, int64_t> down_since_;
  PeerLostHandler on_peer_lost_;  // guarded by problems_mu_
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tfg::net
