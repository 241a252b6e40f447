// What a process listening without CURVE exposes, said once at start: any
// host that reaches the port can send it messages (a worker runs the
// graphs it is sent). On loopback only local users can; CURVE refuses a
// connection before reading any frame from it.
#pragma once

#include <string>

namespace tfg::net {

// Whether the bound address "tcp://HOST:PORT" (HOST an IPv4 or bracketed
// IPv6 address, as ZeroMQ reports it) is on a loopback network: 127.0.0.0/8
// or ::1. Anything else, 0.0.0.0 and names included, is not.
bool IsLoopbackAddress(const std::string& address);

// Who listens: a worker runs the graphs it is sent; a master (a script's
// process with --master-listen) only takes replies and tensors.
enum class Listener { kWorker, kMaster };

// The warning for a process listening at `address`, or "" when there is
// nothing to warn of (CURVE on, or loopback).
std::string ExposureWarning(const std::string& address, bool curve, Listener who = Listener::kWorker);

}  // namespace tfg::net
