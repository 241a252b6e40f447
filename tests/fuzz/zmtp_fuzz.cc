// libFuzzer entry for the reader of ZeroMQ's wire protocol on this
// process's port (net/zmtp_reader.cc): any bytes a peer sends, cut into
// reads of any sizes, must become messages within the limits or an error
// that closes the connection, never a crash or an out-of-bounds access;
// and every byte a frame held must be given back to the memory budget
// once the reader and its messages are gone.
//
// An input: a first byte (bit 0: prepend a valid handshake, so that the
// fuzzer spends its time on frames; bits 1-6: the size of each read,
// 1-63 bytes, or 0 for as much as the reader takes; bit 7: limits of
// 1 MiB a message, so that a frame claiming more than the input holds is
// read straight into its buffer, instead of 4 KiB), then the stream.
//
// With TFG_ZMTP_SEEDS=DIR set, the binary writes a few valid streams into
// DIR, the seeds scripts/fuzz starts from, and exits.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "net/zmtp_reader.h"
#include "ops/core/memory_budget.h"

namespace {

using namespace tfg;
using namespace tfg::net;

std::string FrameOf(const std::string& payload, bool more) {
  std::string out(1, static_cast<char>(more ? 1 : 0));
  if (payload.size() > 255) {
    out[0] = static_cast<char>(out[0] | 2);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((uint64_t{payload.size()} >> shift) & 0xff);
  } else {
    out += static_cast<char>(payload.size());
  }
  return out + payload;
}

// The server's hello reads as a client's too: greeting, READY (ROUTER).
std::string Handshake() { return ZmtpServerHello(); }

void WriteSeeds(const char* dir) {
  const std::vector<std::string> streams = {
      std::string(1, '\x01') + FrameOf("head", false),
      std::string(1, '\x01') + FrameOf("head", true) + FrameOf(std::string(300, 'a'), true) + FrameOf("", false),
      std::string(1, '\x03') + std::string("\x04\x07\x04PING\0\x0a", 9) + FrameOf("x", false),
      std::string(1, '\x00') + Handshake() + FrameOf("head", false),
      std::string(1, '\x81') + FrameOf("head", true) + FrameOf(std::string(20000, 'b'), false),
  };
  for (size_t i = 0; i < streams.size(); ++i) {
    std::ofstream(std::string(dir) + "/stream" + std::to_string(i), std::ios::binary) << streams[i];
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TFG_ZMTP_SEEDS")) {
    WriteSeeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = (data[0] >> 1) & 63;
  std::string stream = (data[0] & 1) ? Handshake() : std::string();
  stream.append(reinterpret_cast<const char*>(data) + 1, size - 1);
  ZmtpLimits limits;
  limits.max_message_bytes = (data[0] & 0x80) ? size_t{1} << 20 : 4096;
  limits.max_frames = 8;
  limits.max_command_bytes = 512;
  const int64_t before = MemoryInUse();
  {
    ZmtpReader reader(limits);
    std::vector<Received> messages;
    std::string reply;
    size_t at = 0;
    while (at < stream.size()) {
      const ZmtpReader::Space space = reader.NextSpace();
      if (space.size == 0) std::abort();  // the reader must always take more
      const size_t n = std::min({space.size, piece == 0 ? space.size : piece, stream.size() - at});
      std::memcpy(space.data, stream.data() + at, n);
      at += n;
      if (!reader.Take(n, messages, reply).ok()) break;
    }
    for (const Received& m : messages) {
      size_t bytes = m.head.size();
      for (const Attachment& a : m.attachments) bytes += a.size;
      if (bytes > limits.max_message_bytes || m.attachments.size() + 1 > limits.max_frames) std::abort();
    }
  }
  if (MemoryInUse() != before) {
    std::fprintf(stderr, "the budget holds %lld bytes more after the reader and its messages are gone\n",
                 static_cast<long long>(MemoryInUse() - before));
    std::abort();
  }
  return 0;
}
