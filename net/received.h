// A message as this process received it: the head frame and the frames
// after it, each left in the buffer it arrived in (a large tensor is not
// copied once more on its way to the decoder). Frames come from libzmq's
// ROUTER (CURVE) or from tfg's own reader of the wire (net/zmtp_reader.h).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "net/protocol.h"

struct zmq_msg_t;  // zmq.h stays out of this header

namespace tfg::net {

// One frame: a zmq_msg_t, whose buffer is libzmq's or one handed over
// with Adopt.
class Frame {
 public:
  Frame();
  ~Frame();
  Frame(Frame&& o) noexcept;
  Frame& operator=(Frame&& o) noexcept;
  Frame(const Frame&) = delete;
  // A frame that owns `data` (from malloc): `release(data, hint)` runs
  // when the last user of the frame is done with it.
  static Frame Adopt(char* data, size_t size, void (*release)(void* data, void* hint), void* hint);
  char* data() const;
  size_t size() const;
  operator std::string_view() const { return {data(), size()}; }

 private:
  friend class Transport;
  ::zmq_msg_t* msg() const;
  // The zmq_msg_t itself (64 bytes, checked in transport.cc), held here
  // rather than allocated: a frame is made for every message received.
  alignas(8) unsigned char msg_[64];
};

// A message as it arrived: its head, and the frames after it (each keeps
// its buffer alive for the tensor decoded from it).
struct Received {
  Frame head;
  std::vector<Attachment> attachments;
};

}  // namespace tfg::net
