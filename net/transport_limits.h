// Caps on what peers can make a process's Transport hold
// (docs/distributed.md, "Limits"); net/transport_limits.cc and
// net/zmtp_listener.cc enforce them.
#pragma once

#include <cstddef>

namespace tfg::net {

struct TransportLimits {
  // Connections accepted at once; one more is closed as soon as it is
  // accepted. Connections that do not finish ZeroMQ's handshake within
  // handshake_seconds are closed too.
  int max_connections = 256;
  double handshake_seconds = 5;
  // A connection is sent a ZeroMQ PING after ping_seconds without a byte
  // from it (a live libzmq peer answers at once), and is closed after
  // silent_seconds without one: a machine that vanished without closing
  // its connections, or a peer that sends part of a message and then
  // sits. Any byte counts as a sign of life (with CURVE, libzmq counts
  // only whole frames), so a large message may cross a slow network.
  double ping_seconds = 30;
  double silent_seconds = 330;
  // Sockets kept to peers (each connects and reconnects to its address):
  // making one more closes the least recently used.
  size_t max_peers = 256;
  // Answers to strangers (a Hello this process will not serve): each goes
  // from a socket of its own, closed as soon as the answer is handed to
  // ZeroMQ, which then lingers up to kStrangerLingerMs to deliver it and
  // takes in nothing the stranger sends. At most max_stranger_sockets
  // linger at once, and at most stranger_replies_per_second answers go a
  // second.
  size_t max_stranger_sockets = 8;
  int stranger_replies_per_second = 20;
};

}  // namespace tfg::net
