// ZmtpReader: ZMTP 3 bytes as a libzmq DEALER sends them (built here from
// the specification, rfc.zeromq.org/spec/37, not from the reader's code)
// become messages; a message over its limits is dropped frame by frame,
// holding nothing, and the next message is read; anything else ends the
// connection.
#include "net/zmtp_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/memory_budget.h"

namespace tfg::net {
namespace {

std::string Greeting(const char* mechanism = "NULL", uint8_t major = 3) {
  std::string g(64, '\0');
  g[0] = '\xff';
  g[9] = '\x7f';
  g[10] = static_cast<char>(major);
  g[11] = 1;
  for (size_t i = 0; mechanism[i] != '\0'; ++i) g[12 + i] = mechanism[i];
  return g;
}

std::string SizeField(uint64_t size, bool is_long) {
  std::string out;
  if (!is_long) return std::string(1, static_cast<char>(size));
  for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((size >> shift) & 0xff);
  return out;
}

// A frame's flags and size: MORE 1, LONG 2, COMMAND 4.
std::string Header(uint64_t size, bool more, bool command = false) {
  const bool is_long = size > 255;
  const char flags = static_cast<char>((more ? 1 : 0) | (is_long ? 2 : 0) | (command ? 4 : 0));
  return std::string(1, flags) + SizeField(size, is_long);
}

std::string FrameOf(const std::string& payload, bool more) { return Header(payload.size(), more) + payload; }

std::string CommandOf(const std::string& name, const std::string& data) {
  const std::string body = std::string(1, static_cast<char>(name.size())) + name + data;
  return Header(body.size(), false, true) + body;
}

std::string Ready(const std::string& socket_type = "DEALER") {
  const std::string name = "Socket-Type";
  std::string value_size(4, '\0');
  value_size[3] = static_cast<char>(socket_type.size());
  return CommandOf("READY", std::string(1, static_cast<char>(name.size())) + name + value_size + socket_type);
}

std::string Handshake() { return Greeting() + Ready(); }

struct Fed {
  Status status;
  std::vector<Received> messages;
  std::string reply;
};

// Feeds `bytes` `piece` at a time, as reads of that size would.
Fed Feed(ZmtpReader& reader, const std::string& bytes, size_t piece = 1 << 20) {
  Fed fed;
  size_t at = 0;
  while (at < bytes.size() && fed.status.ok()) {
    const ZmtpReader::Space space = reader.NextSpace();
    const size_t n = std::min({space.size, piece, bytes.size() - at});
    std::copy(bytes.data() + at, bytes.data() + at + n, space.data);
    at += n;
    fed.status = reader.Take(n, fed.messages, fed.reply);
  }
  return fed;
}

TEST(ZmtpReaderTest, MessagesOfAHeadAndFramesArriveWhole) {
  for (size_t piece : {size_t{1}, size_t{7}, size_t{1} << 20}) {
    ZmtpReader reader;
    const std::string big(100000, 'b');  // long size field; read straight into its buffer
    Fed fed = Feed(reader,
                   Handshake() + FrameOf("head", true) + FrameOf("", true) + FrameOf(big, false) +
                       FrameOf("second", false),
                   piece);
    ASSERT_TRUE(fed.status.ok()) << fed.status.message();
    EXPECT_TRUE(reader.ready());
    ASSERT_EQ(fed.messages.size(), 2u) << "piece " << piece;
    EXPECT_EQ(std::string_view(fed.messages[0].head), "head");
    ASSERT_EQ(fed.messages[0].attachments.size(), 2u);
    EXPECT_EQ(fed.messages[0].attachments[0].size, 0u);
    EXPECT_EQ(std::string(fed.messages[0].attachments[1].data, fed.messages[0].attachments[1].size), big);
    EXPECT_EQ(std::string_view(fed.messages[1].head), "second");
    EXPECT_TRUE(fed.messages[1].attachments.empty());
  }
}

TEST(ZmtpReaderTest, APingIsAnsweredWithAPongOfItsContext) {
  ZmtpReader reader;
  Fed fed = Feed(reader, Handshake() + CommandOf("PING", std::string("\0\x0a", 2) + "ctx"));
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  EXPECT_EQ(fed.reply, std::string("\x04\x08\x04PONGctx", 10));
}

TEST(ZmtpReaderTest, TheServersHelloIsAGreetingAndAReadyOfARouter) {
  const std::string hello = ZmtpServerHello();
  ASSERT_GT(hello.size(), 64u);
  EXPECT_EQ(hello.substr(0, 64), Greeting());
  EXPECT_EQ(hello.substr(64), Ready("ROUTER"));
  // It reads as a handshake too (a ROUTER may talk to a ROUTER).
  ZmtpReader reader;
  EXPECT_TRUE(Feed(reader, hello).status.ok());
  EXPECT_TRUE(reader.ready());
}

// The message whose frames pass the limit together is dropped at that
// frame (its first frames freed at once) and read to its end; the next
// message is delivered.
TEST(ZmtpReaderTest, AMessageOverItsByteLimitIsDroppedAndTheNextRead) {
  ZmtpLimits limits;
  limits.max_message_bytes = 300000;
  ZmtpReader reader(limits);
  const int64_t before = MemoryInUse();
  const std::string part(200000, 'p');
  Fed fed = Feed(reader, Handshake() + FrameOf("head", true) + FrameOf(part, true) + FrameOf(part, true));
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  EXPECT_TRUE(fed.messages.empty());
  EXPECT_EQ(MemoryInUse(), before);  // the first part went when the second passed the limit
  fed = Feed(reader, FrameOf(part, false) + FrameOf("next", false));
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(std::string_view(fed.messages[0].head), "next");
}

TEST(ZmtpReaderTest, AMessageOverItsFrameLimitIsDropped) {
  ZmtpLimits limits;
  limits.max_frames = 3;
  ZmtpReader reader(limits);
  std::string empties;
  for (int i = 0; i < 100000; ++i) empties += FrameOf("", true);
  Fed fed = Feed(reader, Handshake() + FrameOf("head", true) + empties + FrameOf("", false) + FrameOf("next", false));
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(std::string_view(fed.messages[0].head), "next");
}

// A size field may claim 1 GiB: nothing is held beyond the bytes that
// came (the buffer starts at 1 MiB at most and grows as they arrive).
TEST(ZmtpReaderTest, AClaimedSizeHoldsOnlyWhatArrived) {
  ZmtpReader reader;
  const int64_t before = MemoryInUse();
  Fed fed = Feed(reader, Handshake() + FrameOf("head", true) + Header(kMaxMessageBytes - 100, true) +
                             std::string(3 << 20, 'x'));
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  EXPECT_TRUE(fed.messages.empty());
  EXPECT_LE(MemoryInUse() - before, int64_t{8} << 20);
  EXPECT_GE(MemoryInUse() - before, int64_t{3} << 20);
}

TEST(ZmtpReaderTest, AFrameBeyondTheMemoryBudgetDropsItsMessage) {
  const int64_t limit = MemoryLimit();
  SetMemoryLimit(MemoryInUse() + (4 << 20));
  ZmtpReader reader;
  const std::string part(6 << 20, 'p');
  Fed fed = Feed(reader, Handshake() + FrameOf("head", true) + FrameOf(part, false) + FrameOf("next", false));
  SetMemoryLimit(limit);
  ASSERT_TRUE(fed.status.ok()) << fed.status.message();
  ASSERT_EQ(fed.messages.size(), 1u);
  EXPECT_EQ(std::string_view(fed.messages[0].head), "next");
}

TEST(ZmtpReaderTest, WhatIsNotZmtp3WithNullSecurityEndsTheConnection) {
  struct Case {
    std::string bytes, error;
  };
  const std::vector<Case> cases = {
      {"GET / HTTP/1.1\r\n", "not a ZMTP 3 greeting"},
      {std::string("\xff\0\0\0\0\0\0\0\x01\x00", 10), "not a ZMTP 3 greeting"},  // ZMTP 1.0
      {Greeting("NULL", 2), "ZMTP version 2"},
      {Greeting("CURVE"), "ZeroMQ security 'CURVE'"},
      {Greeting() + FrameOf("head", false), "a message before the handshake's READY"},
      {Greeting() + CommandOf("PING", std::string(2, '\0')), "a command before the handshake's READY"},
      {Greeting() + Ready("PUB"), "cannot talk to a ROUTER"},
      {Greeting() + CommandOf("READY", std::string("\x0bSocket-Type\0\0\0\x7f", 16)), "runs past its end"},
      {Handshake() + Ready(), "a second READY"},
      {Handshake() + std::string("\x09\x01x", 3), "reserved flag bits"},
      {Handshake() + std::string("\x05\x01x", 3), "a command with the MORE flag"},
      {Handshake() + Header(5000, false, true), "a command of 5000 bytes"},
      {Handshake() + CommandOf("ERROR", "\x03why"), "the peer sent ERROR"},
      {Handshake() + CommandOf("PING", "x"), "a PING of a bad size"},
  };
  for (const Case& c : cases) {
    ZmtpReader reader;
    const Fed fed = Feed(reader, c.bytes);
    ASSERT_FALSE(fed.status.ok()) << c.error;
    EXPECT_NE(fed.status.message().find(c.error), std::string::npos) << fed.status.message();
  }
}

}  // namespace
}  // namespace tfg::net
