// What peers of different protocol versions can still read of each other
// (net/protocol.h, kFirstStableVersion): the envelope of any message, and
// a WrongVersion whole. The bytes of other versions are written by hand
// from the layout at the top of net/wire.cc.
#include <gtest/gtest.h>

#include <string>

#include "net/protocol.h"

namespace tfg::net {
namespace {

constexpr uint64_t kSession = 0x1234567890ull;
constexpr char kReplyTo[] = "tcp://127.0.0.1:4000";

void AppendLittleEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// Byte order, magic, version, kind; request id 7 (a one-byte varint), the
// session id, and the reply address (its length a one-byte varint).
std::string Envelope(uint16_t version, uint8_t kind) {
  std::string out = "\x01";
  AppendLittleEndian(out, kMagic, 4);
  AppendLittleEndian(out, version, 2);
  out += static_cast<char>(kind);
  out += '\x07';
  AppendLittleEndian(out, kSession, 8);
  out += static_cast<char>(sizeof(kReplyTo) - 1);
  out += kReplyTo;
  return out;
}

constexpr uint8_t kHelloKind = 1;
constexpr uint8_t kWrongVersionKind = 255;

// A message of this version with the envelope Envelope() writes.
Message WithEnvelope(MessageKind kind) {
  Message m;
  m.kind = kind;
  m.request_id = 7;
  m.session_id = kSession;
  m.reply_to = kReplyTo;
  return m;
}

TEST(WireVersionsTest, OurEnvelopeIsTheStableLayout) {
  auto encoded = EncodeMessage(WithEnvelope(MessageKind::kHello));
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  const std::string envelope = Envelope(kProtocolVersion, kHelloKind);
  EXPECT_EQ(encoded->head.substr(0, envelope.size()), envelope);
}

TEST(WireVersionsTest, WrongVersionRoundTrips) {
  Message m = WithEnvelope(MessageKind::kWrongVersion);
  m.status.message = "start every task from the same tfg build";
  auto encoded = EncodeMessage(m);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  EXPECT_EQ(encoded->head, Envelope(kProtocolVersion, kWrongVersionKind) + "\x28" + m.status.message);
  auto back = DecodeMessage(encoded->head);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, MessageKind::kWrongVersion);
  EXPECT_EQ(back->version, kProtocolVersion);
  EXPECT_EQ(back->status.code, Code::kFailedPrecondition);
  EXPECT_EQ(back->status.message, m.status.message);
}

TEST(WireVersionsTest, AWrongVersionFromALaterVersionIsRead) {
  auto m = DecodeMessage(Envelope(9, kWrongVersionKind) + "\x05" + "speak");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, 9);
  EXPECT_EQ(m->kind, MessageKind::kWrongVersion);
  EXPECT_EQ(m->request_id, 7u);
  EXPECT_EQ(m->session_id, kSession);
  EXPECT_EQ(m->reply_to, kReplyTo);
  EXPECT_EQ(m->status.code, Code::kFailedPrecondition);
  EXPECT_EQ(m->status.message, "speak");
  // Only the reason: nothing may follow it.
  EXPECT_EQ(DecodeMessage(Envelope(9, kWrongVersionKind) + "\x05" + "speak!").status().message(),
            "1 bytes after the end of a WrongVersion message");
}

TEST(WireVersionsTest, OnlyTheEnvelopeOfOtherMessagesOfALaterVersionIsRead) {
  // A body this version cannot read, of a kind it may not know.
  for (uint8_t kind : {kHelloKind, uint8_t{200}}) {
    const std::string bytes = Envelope(9, kind) + "\xff\xff body of version 9";
    auto header = DecodeHeader(bytes);
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    EXPECT_EQ(header->version, 9);
    EXPECT_EQ(static_cast<uint8_t>(header->kind), kind);
    EXPECT_EQ(header->request_id, 7u);
    EXPECT_EQ(header->session_id, kSession);
    EXPECT_EQ(header->reply_to, kReplyTo);
    EXPECT_EQ(DecodeMessage(bytes).status().message(), "malformed message: protocol version 9 (this tfg speaks 4)");
  }
}

TEST(WireVersionsTest, VersionsBeforeTheStableLayoutAreRefused) {
  // Version 3 wrote fixed-width ids and lengths: its envelope cannot be read.
  const std::string refusal = "malformed message: protocol version 3 (this tfg speaks 4)";
  EXPECT_EQ(DecodeHeader(Envelope(3, kHelloKind)).status().message(), refusal);
  EXPECT_EQ(DecodeMessage(Envelope(3, kWrongVersionKind) + "\x01x").status().message(), refusal);
}

}  // namespace
}  // namespace tfg::net
