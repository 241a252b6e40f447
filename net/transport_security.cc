// The CURVE side of Transport (net/curve.h): the ZAP handler that accepts
// or refuses each client key, and the monitors that say why a peer
// refused this process's handshake.
#include <zmq.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "net/curve.h"
#include "net/refusal_log.h"
#include "net/transport.h"

namespace tfg::net {

namespace {

Status ZmqError(const std::string& what) {
  return Error(Code::kUnavailable, "{}: {}", what, zmq_strerror(zmq_errno()));
}

}  // namespace

// The ZAP handler must be bound before the ROUTER so that no connection
// slips in unchecked.
Status Transport::StartSecurity() {
  const NetSettings& net = GetNetSettings();
  if (!net.curve) return Status::OK();
  for (const std::string& key : net.keys.authorized) authorized_.insert(Z85ToBinary(key));
  zap_ = zmq_socket(context_, ZMQ_REP);
  if (zap_ == nullptr) return ZmqError("cannot create the ZAP socket");
  int linger = 0;
  zmq_setsockopt(zap_, ZMQ_LINGER, &linger, sizeof(linger));
  if (zmq_bind(zap_, "inproc://zeromq.zap.01") != 0) return ZmqError("cannot start the ZAP handler");
  return Status::OK();
}

namespace {

std::vector<std::string> ReceiveParts(void* socket) {
  std::vector<std::string> parts;
  int more = 1;
  while (more) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&msg);
      break;
    }
    parts.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
    more = zmq_msg_more(&msg);
    zmq_msg_close(&msg);
  }
  return parts;
}

}  // namespace

// A ZAP request (RFC 27): version, request id, domain, address, identity,
// mechanism, then the client's 32-byte public key for CURVE.
void Transport::AnswerZap() {
  std::vector<std::string> req = ReceiveParts(zap_);
  // A REP socket must answer before it can receive again: even a request
  // libzmq would never send gets a refusal.
  req.resize(std::max<size_t>(req.size(), 6));
  const bool ok = req.size() == 7 && req[0] == "1.0" && req[5] == "CURVE" && authorized_.count(req[6]) != 0;
  if (!ok) {
    LogRefusal("an unauthorized CURVE key",
               "refused a " + req[5] + " client at " + req[3] + ": its key is not in --curve-keys DIR/authorized");
  }
  const std::string status = ok ? "200" : "400";
  const std::string text = ok ? "OK" : "not authorized";
  const std::string reply[6] = {"1.0", req[1], status, text, "", ""};
  for (int i = 0; i < 6; ++i) zmq_send(zap_, reply[i].data(), reply[i].size(), i < 5 ? ZMQ_SNDMORE : 0);
}

namespace {

// Handshakes in a row that a peer which accepted the connection broke off
// before it is taken as refusing for good. When one side uses CURVE and
// the other does not, the side that reads the other's greeting first hangs
// up, and the other side often learns only that the connection broke (no
// detail) before it can read why: each attempt (one per reconnect
// interval, 100 ms) may or may not name the mismatch.
constexpr int kBrokenHandshakesRefused = 3;

}  // namespace

// A monitor event: [u16 event, u32 value] and the endpoint.
void Transport::ReadMonitor(const std::string& to, void* monitor) {
  std::vector<std::string> parts = ReceiveParts(monitor);
  if (parts.empty() || parts[0].size() < 6) return;
  uint16_t event;
  uint32_t value;
  std::memcpy(&event, parts[0].data(), 2);
  std::memcpy(&value, parts[0].data() + 2, 4);
  if (OnConnectionEvent(to, event, value)) return;
  std::string problem;
  bool lasting = false;
  RefusalHandler on_refusal;
  {
    std::lock_guard<std::mutex> lock(problems_mu_);
    int& broken = broken_handshakes_[to];
    broken = event == ZMQ_EVENT_HANDSHAKE_SUCCEEDED ? 0 : broken + 1;
    if (event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
      problem =
          "refused the connection: not authorized (this process's --curve-keys client key is not in its "
          "authorized/)";
      lasting = true;
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL && value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
      problem = "refused the connection: it does not use CURVE security (--curve-keys on one side only)";
      lasting = true;
    } else if (event != ZMQ_EVENT_HANDSHAKE_SUCCEEDED && broken >= kBrokenHandshakesRefused) {
      problem = fmt::format(
          "refused the connection: it broke off {} handshakes in a row (--curve-keys on one side only, another "
          "cluster's keys, or not a tfg worker)",
          broken);
      lasting = true;
    } else if (event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL || event == ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) {
      problem = "the CURVE handshake failed (another cluster's server key?)";
    }
    problems_[to] = problem;
    if (lasting) on_refusal = on_refusal_;
  }
  if (on_refusal) on_refusal(to, problem);
}

void Transport::OnRefusal(RefusalHandler handler) {
  std::lock_guard<std::mutex> lock(problems_mu_);
  on_refusal_ = std::move(handler);
}

std::string Transport::PeerProblem(const std::string& to) const {
  std::lock_guard<std::mutex> lock(problems_mu_);
  auto it = problems_.find(to);
  return it == problems_.end() ? "" : it->second;
}

}  // namespace tfg::net
