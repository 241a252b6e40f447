// What a peer sends back on a connection this process made is never read
// (peers answer on their own connections to this process's ROUTER), so it
// must not be kept either: an answer to a stranger still arrives, and then
// its connection closes; a frame larger than ZeroMQ's own commands closes
// a peer's connection before it is read into memory. Also the warning a
// worker prints when it listens beyond loopback without CURVE.
#include <gtest/gtest.h>
#include <zmq.h>

#include <chrono>
#include <string>
#include <vector>

#include "net/exposure.h"
#include "net/transport.h"

namespace tfg::net {
namespace {

using Clock = std::chrono::steady_clock;

Message Heartbeat() {
  Message m;
  m.kind = MessageKind::kHeartbeat;
  return m;
}

// A ROUTER of the test's own, on libzmq directly: the stranger or peer a
// Transport connects to, which sees what arrives and when a connection
// ends (a monitor of its disconnections).
class Listener {
 public:
  Listener() {
    context_ = zmq_ctx_new();
    router_ = zmq_socket(context_, ZMQ_ROUTER);
    const int linger = 0, timeout_ms = 100;
    zmq_setsockopt(router_, ZMQ_LINGER, &linger, sizeof(linger));
    zmq_setsockopt(router_, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
    const std::string name = "inproc://listener-" + std::to_string(reinterpret_cast<uintptr_t>(this));
    zmq_socket_monitor(router_, name.c_str(), ZMQ_EVENT_DISCONNECTED);
    monitor_ = zmq_socket(context_, ZMQ_PAIR);
    zmq_setsockopt(monitor_, ZMQ_LINGER, &linger, sizeof(linger));
    zmq_setsockopt(monitor_, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
    zmq_connect(monitor_, name.c_str());
    bound_ = zmq_bind(router_, "tcp://127.0.0.1:*") == 0;
    char endpoint[256] = {};
    size_t size = sizeof(endpoint);
    zmq_getsockopt(router_, ZMQ_LAST_ENDPOINT, endpoint, &size);
    address_ = endpoint;
  }
  ~Listener() {
    zmq_socket_monitor(router_, nullptr, 0);
    zmq_close(monitor_);
    zmq_close(router_);
    zmq_ctx_term(context_);
  }
  bool bound() const { return bound_; }
  const std::string& address() const { return address_; }

  // The frames of the next message (the sender's identity first), or none
  // within `seconds`.
  std::vector<std::string> Receive(double seconds) {
    std::vector<std::string> frames;
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (frames.empty() && Clock::now() < deadline) {
      for (bool more = true; more;) {
        zmq_msg_t part;
        zmq_msg_init(&part);
        if (zmq_msg_recv(&part, router_, 0) < 0) {
          zmq_msg_close(&part);
          break;
        }
        frames.emplace_back(static_cast<char*>(zmq_msg_data(&part)), zmq_msg_size(&part));
        more = zmq_msg_more(&part);
        zmq_msg_close(&part);
      }
    }
    return frames;
  }

  // Sends [identity, each of `frames`] back to a sender.
  void SendBack(const std::string& identity, const std::vector<std::string>& frames) {
    zmq_send(router_, identity.data(), identity.size(), ZMQ_SNDMORE);
    for (size_t i = 0; i < frames.size(); ++i) {
      zmq_send(router_, frames[i].data(), frames[i].size(), i + 1 < frames.size() ? ZMQ_SNDMORE : 0);
    }
  }

  // Whether a connection to this listener ended within `seconds`.
  bool Disconnected(double seconds) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
      zmq_msg_t event;
      zmq_msg_init(&event);
      const bool got = zmq_msg_recv(&event, monitor_, 0) >= 0;
      const bool more = got && zmq_msg_more(&event);
      zmq_msg_close(&event);
      if (!got) continue;
      if (more) {  // the event's second frame: the endpoint
        zmq_msg_t endpoint;
        zmq_msg_init(&endpoint);
        zmq_msg_recv(&endpoint, monitor_, 0);
        zmq_msg_close(&endpoint);
      }
      return true;
    }
    return false;
  }

 private:
  void* context_ = nullptr;
  void* router_ = nullptr;
  void* monitor_ = nullptr;
  bool bound_ = false;
  std::string address_;
};

// The answer is handed to ZeroMQ and its socket closed at once: it must
// still arrive (ZeroMQ connects and delivers it while the closed socket
// lingers), and then the connection must end, so that nothing the
// stranger sends on it can pile up.
TEST(TransportUnreadTest, AnAnswerToAStrangerArrivesAndThenItsConnectionEnds) {
  auto t = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Listener stranger;
  ASSERT_TRUE(stranger.bound());
  ASSERT_TRUE((*t)->SendToStranger(stranger.address(), Heartbeat()));
  // Generous: CI runs this on two loaded cores under sanitizers.
  const std::vector<std::string> frames = stranger.Receive(20);
  ASSERT_EQ(frames.size(), 2u) << "no answer arrived";
  auto answer = DecodeMessage(frames[1]);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->kind, MessageKind::kHeartbeat);
  EXPECT_TRUE(stranger.Disconnected(20)) << "the connection to the stranger stayed open";
}

// A peer's socket stays open (it carries this process's messages), but a
// frame sent back on it above kMaxFrameFromPeer ends the connection; a
// small one does not (at most one such message is queued, unread).
TEST(TransportUnreadTest, ALargeFrameSentBackToAPeerSocketEndsItsConnection) {
  auto t = Transport::Start("tcp://127.0.0.1:0", [](Received&) {});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Listener peer;
  ASSERT_TRUE(peer.bound());
  ASSERT_TRUE((*t)->Send(peer.address(), Heartbeat()).ok());
  const std::vector<std::string> frames = peer.Receive(20);
  ASSERT_EQ(frames.size(), 2u) << "the message never arrived";
  peer.SendBack(frames[0], {std::string(100, 'x')});
  EXPECT_FALSE(peer.Disconnected(0.5)) << "a 100-byte frame ended the connection";
  peer.SendBack(frames[0], {std::string(kMaxFrameFromPeer + 1, 'x')});
  EXPECT_TRUE(peer.Disconnected(20)) << "a frame above kMaxFrameFromPeer was taken in";
}

TEST(ExposureTest, LoopbackAddressesAreTheOnesOf127Slash8AndColonColon1) {
  EXPECT_TRUE(IsLoopbackAddress("tcp://127.0.0.1:7001"));
  EXPECT_TRUE(IsLoopbackAddress("tcp://127.3.4.5:1"));
  EXPECT_TRUE(IsLoopbackAddress("tcp://[::1]:7001"));
  EXPECT_TRUE(IsLoopbackAddress("tcp://[::ffff:127.0.0.1]:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://0.0.0.0:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://10.1.2.3:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://128.0.0.1:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://[::]:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://[::ffff:10.0.0.1]:7001"));
  EXPECT_FALSE(IsLoopbackAddress("tcp://localhost:7001"));  // ZeroMQ reports addresses, not names
  EXPECT_FALSE(IsLoopbackAddress("garbage"));
}

TEST(ExposureTest, OnlyAnAddressBeyondLoopbackWithoutCurveIsWarnedOf) {
  EXPECT_EQ(ExposureWarning("tcp://127.0.0.1:7001", false), "");
  EXPECT_EQ(ExposureWarning("tcp://0.0.0.0:7001", true), "");
  const std::string warning = ExposureWarning("tcp://0.0.0.0:7001", false);
  EXPECT_NE(warning.find("listening on tcp://0.0.0.0:7001 without CURVE"), std::string::npos) << warning;
  EXPECT_NE(warning.find("any host that can reach this port"), std::string::npos) << warning;
  // The port itself bounds what a peer can make this process hold
  // (net/zmtp_listener.h): the warning is about who may send, not memory.
  EXPECT_EQ(warning.find("memory"), std::string::npos) << warning;
  EXPECT_NE(warning.find("--curve-keys DIR"), std::string::npos) << warning;
  EXPECT_NE(warning.find("can run graphs here"), std::string::npos) << warning;
  // A master (--master-listen) takes only replies and tensors.
  const std::string master = ExposureWarning("tcp://10.0.0.5:7001", false, tfg::net::Listener::kMaster);
  EXPECT_NE(master.find("any host that can reach this port can send this master messages."), std::string::npos)
      << master;
  EXPECT_EQ(ExposureWarning("tcp://127.0.0.1:7001", false, tfg::net::Listener::kMaster), "");
}

}  // namespace
}  // namespace tfg::net
