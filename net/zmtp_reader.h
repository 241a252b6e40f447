// What a peer sends to this process's port, read by tfg itself as
// ZeroMQ's wire protocol (ZMTP 3.0/3.1, NULL security: no CURVE) rather
// than by libzmq, so that every message is held to the protocol's limits
// frame by frame as it arrives. libzmq (4.3) queues the frames of a
// message until its last one arrives, bounding neither their number nor
// their total, so a peer that never ends a message could make a process
// hold memory without limit; here a message over the limits is dropped
// as its frames come in (the rest of it read and discarded), and nothing
// is allocated that the bytes already arrived do not fill.
//
// The peers are libzmq DEALERs (the sending side of net/transport.h), so
// this is the receiving half of a ROUTER: the greeting, the READY
// command, frames, and PING answered with PONG. It never sends messages.
//
// Each frame's buffer is counted against the process's memory budget
// (ops/core/memory_budget.h) as it fills; a frame that does not fit drops
// its message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/received.h"
#include "ops/core/status.h"

namespace tfg::net {

struct ZmtpLimits {
  // A message's frames together, and their number (the head and its
  // attachments): net/protocol.h.
  size_t max_message_bytes = kMaxMessageBytes;
  size_t max_frames = kMaxAttachments + 1;
  // A command (READY with its properties, PING): ZeroMQ's are a few dozen
  // bytes.
  size_t max_command_bytes = 4096;
};

// What this process sends first on each connection it accepts: its
// greeting (ZMTP 3.1, NULL, as server) and its READY (a ROUTER).
std::string ZmtpServerHello();
// A PING (no TTL, no context): a live libzmq peer answers PONG.
std::string ZmtpPing();

// One connection's bytes, as they arrive, turned into messages.
class ZmtpReader {
 public:
  // `peer` names the connection in the log ("tcp://10.0.0.7:51234").
  explicit ZmtpReader(const ZmtpLimits& limits = {}, std::string peer = "a peer");
  ~ZmtpReader();
  ZmtpReader(const ZmtpReader&) = delete;
  ZmtpReader& operator=(const ZmtpReader&) = delete;

  // Where the next bytes read from the connection go, and how many fit:
  // the unfinished frame's own buffer when a large part of it is still to
  // come (no copy), else a small buffer of the reader's.
  struct Space {
    char* data;
    size_t size;
  };
  Space NextSpace();
  // `n` bytes arrived at the last NextSpace(). Each message they complete
  // is appended to `messages`; bytes to send back (PONG) to `reply`. An
  // error means the peer broke the protocol: the connection must close.
  Status Take(size_t n, std::vector<Received>& messages, std::string& reply);

  // Whether the peer's READY has come (the handshake is done).
  bool ready() const { return ready_; }

 private:
  enum class State { kGreeting, kFlags, kSize, kCommand, kPayload, kSkip };
  struct Growing;  // the unfinished frame's buffer
  Status Parse(std::vector<Received>& messages, std::string& reply);
  Status ReadGreeting();
  void StartFrame(uint64_t size);
  void FillFrame(size_t n);
  void EndFrame(std::vector<Received>& messages);
  Status OnCommand(std::string& reply);
  Status OnReady(std::string_view properties);
  void Drop();

  ZmtpLimits limits_;
  std::string peer_;
  State state_ = State::kGreeting;
  std::vector<char> in_;  // what arrived and is not parsed yet: [begin_, end_)
  size_t begin_ = 0, end_ = 0;
  bool direct_ = false;     // the last NextSpace() was the frame's own buffer
  bool ready_ = false;
  uint8_t flags_ = 0;       // the current frame's
  uint64_t left_ = 0;       // bytes of the current size field, command or payload still to come
  uint64_t size_ = 0;       // the current frame's size, as its size field is read
  std::string command_;
  std::unique_ptr<Growing> frame_;
  // The message being read: its frames so far, their bytes (saturating),
  // and whether it is being dropped.
  Received message_;
  size_t frames_ = 0;
  uint64_t bytes_ = 0;
  bool dropping_ = false;
};

}  // namespace tfg::net
