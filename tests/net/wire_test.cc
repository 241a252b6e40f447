#include "net/protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "ops/core/dtype_traits.h"

namespace tfg::net {
namespace {

Tensor Strings() { return Tensor::FromVector<std::string>({"", "ab", "a longer string"}, TensorShape({3})); }

Message RunStepMessage() {
  Message m;
  m.kind = MessageKind::kRunStep;
  m.request_id = 7;
  m.session_id = 0x1234567890ull;
  m.reply_to = "tcp://127.0.0.1:4000";
  m.run_step.graph_handle = 3;
  m.run_step.run_id = 42;
  m.run_step.seed = 9;
  m.run_step.timeout_seconds = 1.5;
  Tensor half(HostAllocator(), DType::kF16, TensorShape({2}));
  half.data<tfg::half>()[0] = tfg::half(1.5f);
  half.data<tfg::half>()[1] = tfg::half(-2.0f);
  m.run_step.feeds = {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
                      Tensor::Scalar<int64_t>(-5),
                      Tensor::FromVector<bool>({true, false}, TensorShape({2})),
                      Strings(),
                      half,
                      Tensor::FromVector<double>({}, TensorShape({0, 4})),
                      Tensor::FromVector<int32_t>({-1, 7}, TensorShape({2, 1}))};
  return m;
}

Message RegisterMessage() {
  Message m;
  m.kind = MessageKind::kRegisterGraph;
  m.reply_to = "tcp://127.0.0.1:1";
  RegisterGraph& r = m.register_graph;
  r.graph_handle = 11;
  r.device = "/job:worker/replica:0/task:1/device:cpu:0";
  NodeDef a;
  a.name = "a";
  a.op = "constant";
  a.attrs["value"] = Tensor::FromVector<float>({1, 2}, TensorShape({2}));
  a.attrs["dtype"] = DType::kF32;
  a.attrs["axes"] = std::vector<int64_t>{0, -1};
  a.attrs["shapes"] = std::vector<PartialShape>{PartialShape({-1, 3}), PartialShape::Unknown()};
  a.attrs["names"] = std::vector<std::string>{"x", ""};
  a.attrs["none"] = std::monostate{};
  a.attrs["flag"] = true;
  a.attrs["rate"] = 0.5;
  a.output_shapes = {PartialShape({2})};
  a.span = WireSpan{"m.tfg", 3, 5, 3, 9, "a = constant([1, 2])"};
  NodeDef b;
  b.name = "b";
  b.op = "neg";
  b.inputs = {{0, 0}};
  b.control_inputs = {0};
  r.graph.nodes = {a, b};
  r.feeds = {"a:0"};
  r.fetches = {"b:0"};
  r.targets = {"b"};
  return m;
}

// The head of a message whose tensors all travel inline.
std::string Encode(const Message& m) {
  auto encoded = EncodeMessage(m);
  EXPECT_TRUE(encoded.ok()) << encoded.status().ToString();
  if (!encoded.ok()) return std::string();
  EXPECT_TRUE(encoded->attachments.empty());
  return encoded->head;
}

TEST(WireTest, RunStepRoundTrips) {
  Message m = RunStepMessage();
  auto back = DecodeMessage(Encode(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, MessageKind::kRunStep);
  EXPECT_EQ(back->request_id, 7u);
  EXPECT_EQ(back->session_id, 0x1234567890ull);
  EXPECT_EQ(back->reply_to, "tcp://127.0.0.1:4000");
  EXPECT_EQ(back->run_step.run_id, 42);
  EXPECT_EQ(back->run_step.timeout_seconds, 1.5);
  ASSERT_EQ(back->run_step.feeds.size(), m.run_step.feeds.size());
  for (size_t i = 0; i < m.run_step.feeds.size(); ++i) {
    EXPECT_TRUE(TensorsEqual(back->run_step.feeds[i], m.run_step.feeds[i])) << i;
  }
}

TEST(WireTest, RegisterGraphRoundTrips) {
  Message m = RegisterMessage();
  auto back = DecodeMessage(Encode(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const RegisterGraph& r = back->register_graph;
  EXPECT_EQ(r.graph_handle, 11u);
  EXPECT_EQ(r.device, "/job:worker/replica:0/task:1/device:cpu:0");
  ASSERT_EQ(r.graph.nodes.size(), 2u);
  const NodeDef& a = r.graph.nodes[0];
  EXPECT_EQ(a.attrs.size(), m.register_graph.graph.nodes[0].attrs.size());
  for (const auto& [name, value] : m.register_graph.graph.nodes[0].attrs) {
    ASSERT_EQ(a.attrs.count(name), 1u) << name;
    EXPECT_TRUE(AttrValuesEqual(a.attrs.at(name), value)) << name;
  }
  EXPECT_EQ(a.span.line_text, "a = constant([1, 2])");
  EXPECT_EQ(a.span.col, 5);
  EXPECT_EQ(r.graph.nodes[1].inputs[0].node, 0);
  EXPECT_EQ(r.graph.nodes[1].control_inputs, std::vector<int32_t>{0});
  EXPECT_EQ(r.targets, std::vector<std::string>{"b"});
}

TEST(WireTest, SmallKindsRoundTrip) {
  Message done;
  done.kind = MessageKind::kStepDone;
  done.step_done.run_id = 5;
  done.step_done.status = ToWire(Status(Code::kInvalidArgument, "bad"));
  done.step_done.fetches = {Tensor::Scalar<float>(2.5f)};
  auto back = DecodeMessage(Encode(done));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->step_done.status.code, Code::kInvalidArgument);
  EXPECT_EQ(back->step_done.status.message, "bad");
  EXPECT_EQ(back->step_done.fetches[0].scalar<float>(), 2.5f);

  // Scalars are the smallest tensors (4 to 11 bytes each): a list of them fits.
  done.step_done.fetches = {Tensor::Scalar<int32_t>(5), Tensor::Scalar<float>(11), Tensor::Scalar<bool>(true)};
  back = DecodeMessage(Encode(done));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->step_done.fetches[2].scalar<bool>(), true);

  Message t;
  t.kind = MessageKind::kTensor;
  t.tensor.run_id = 8;
  t.tensor.tensor_name = "x:0";
  t.tensor.is_dead = true;
  back = DecodeMessage(Encode(t));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->tensor.is_dead);
  EXPECT_FALSE(back->tensor.value.IsInitialized());

  Message hello;
  hello.kind = MessageKind::kHello;
  hello.hello.task = "/job:ps/replica:0/task:0";
  hello.hello.cluster = {{"/job:ps/replica:0/task:0", "tcp://127.0.0.1:7001"}};
  back = DecodeMessage(Encode(hello));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->hello.cluster, hello.hello.cluster);
}

// Every proper prefix of a valid message is refused with an error.
TEST(WireTest, EveryTruncationIsRefused) {
  for (const Message& m : {RunStepMessage(), RegisterMessage()}) {
    const std::string bytes = Encode(m);
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto r = DecodeMessage(std::string_view(bytes).substr(0, n));
      EXPECT_FALSE(r.ok()) << "prefix of " << n << " of " << bytes.size() << " bytes decoded";
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
      }
    }
  }
}

// Corrupting any byte decodes to something or is refused; never a crash
// (ASan and UBSan watch this loop), and never a bool that is not 0 or 1.
TEST(WireTest, EveryCorruptedByteIsSurvived) {
  for (const Message& m : {RunStepMessage(), RegisterMessage()}) {
    const std::string bytes = Encode(m);
    int refused = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (unsigned char x : {0x01, 0x80, 0xff}) {
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ x);
        refused += DecodeMessage(bad).ok() ? 0 : 1;
      }
    }
    EXPECT_GT(refused, 0);
  }
}

TEST(WireTest, RefusesLengthsTheMessageDoesNotHold) {
  const std::string bytes = Encode(RunStepMessage());
  // The reply address's length (20, one byte) follows the byte-order flag,
  // magic, version, kind, request id (7, one byte) and session id:
  // 1 + 4 + 2 + 1 + 1 + 8. 2^62 as a varint is eight 0x80 bytes, then 0x40.
  ASSERT_EQ(bytes[17], 20);
  const std::string huge = std::string(8, '\x80') + '\x40';
  auto r = DecodeMessage(bytes.substr(0, 17) + huge + bytes.substr(18));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "malformed message: reply address: 4611686018427387904 elements, more than the "
                                  "message holds");
}

TEST(WireTest, RefusesBadHeadersAndTrailingBytes) {
  std::string bytes = Encode(RunStepMessage());
  EXPECT_EQ(DecodeMessage("").status().message(), "malformed message: the message stops 1 byte(s) short");
  // Ten bytes end two into the fixed-width session id.
  EXPECT_EQ(DecodeMessage(bytes.substr(0, 10)).status().message(),
            "malformed message: the message stops 7 byte(s) short");
  // cereal's portable archive would read a big-endian writer's values
  // swapped; every tfg host is little-endian, so anything but 1 is refused.
  std::string big_endian = bytes;
  big_endian[0] = 0;
  EXPECT_EQ(DecodeMessage(big_endian).status().message(),
            "malformed message: byte order 0 (tfg peers write 1, little-endian)");
  std::string bad_magic = bytes;
  bad_magic[1] = 'X';
  EXPECT_EQ(DecodeMessage(bad_magic).status().message(), "malformed message: not a tfg message (bad magic)");
  std::string bad_version = bytes;
  bad_version[5] = 9;
  EXPECT_EQ(DecodeMessage(bad_version).status().message(),
            "malformed message: protocol version 9 (this tfg speaks 4)");
  std::string bad_kind = bytes;
  bad_kind[7] = 99;
  EXPECT_EQ(DecodeMessage(bad_kind).status().message(), "malformed message: unknown message kind 99");
  EXPECT_EQ(DecodeMessage(bytes + "zz").status().message(), "2 bytes after the end of a RunStep message");
}

TEST(WireTest, RefusesBoolsThatAreNotZeroOrOne) {
  Message m;
  m.kind = MessageKind::kStepDone;
  m.step_done.fetches = {Tensor::FromVector<bool>({true}, TensorShape({1}))};
  std::string bytes = Encode(m);
  ASSERT_EQ(bytes.back(), 1);
  bytes.back() = 2;
  auto r = DecodeMessage(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "malformed message: bool tensor element 0 is 2");
}

TEST(WireTest, StatusKeepsItsSourceLine) {
  auto file = std::make_shared<SourceFile>("m.tfg", "a = 1\nb = reshape(x, [2])\n");
  Status s(Code::kInvalidArgument, "reshape: bad", SourceSpan{file, 2, 5, 2, 19});
  Status back = FromWire(ToWire(s));
  EXPECT_EQ(back.code(), Code::kInvalidArgument);
  EXPECT_EQ(back.span().ToString(), "m.tfg:2:5");
  EXPECT_EQ(back.span().file->Line(2), "b = reshape(x, [2])");
  EXPECT_EQ(FormatDiagnostic(back), FormatDiagnostic(s));
}

Message TransferOf(Tensor value, bool compress) {
  Message m;
  m.kind = MessageKind::kTensor;
  m.tensor.run_id = 3;
  m.tensor.tensor_name = "w:0";
  m.tensor.compress = compress;
  m.tensor.value = std::move(value);
  return m;
}

// The expected values are the f32 bit patterns with the low 16 bits
// cleared, written out by hand: 1.0f is exact in 16 bits; 0.1f
// (0x3dcccccd) becomes 0x3dcc0000; -3.14159f (0xc0490fd0) becomes
// 0xc0490000; 65537.0f (0x47800080) becomes 0x47800000 (65536).
TEST(WireTest, CompressedF32TransfersKeepTheUpper16Bits) {
  const uint32_t in_bits[] = {0x3f800000u, 0x3dcccccdu, 0xc0490fd0u, 0x47800080u, 0x7f800000u};
  const uint32_t want_bits[] = {0x3f800000u, 0x3dcc0000u, 0xc0490000u, 0x47800000u, 0x7f800000u};
  Tensor value(HostAllocator(), DType::kF32, TensorShape({5, 1}));
  std::memcpy(value.data<float>(), in_bits, sizeof(in_bits));
  const std::string whole = Encode(TransferOf(value, false));
  const std::string compressed = Encode(TransferOf(value, true));
  EXPECT_EQ(whole.size() - compressed.size(), 5u * 2 + 2);  // 2 bytes per element, the dtype and attachment bytes
  auto back = DecodeMessage(compressed);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->tensor.compress);
  ASSERT_EQ(back->tensor.value.dtype(), DType::kF32);
  EXPECT_EQ(back->tensor.value.shape(), TensorShape({5, 1}));
  uint32_t got_bits[5];
  std::memcpy(got_bits, back->tensor.value.data<float>(), sizeof(got_bits));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got_bits[i], want_bits[i]) << "element " << i;
}

TEST(WireTest, CompressionLeavesOtherDtypesWhole) {
  for (Tensor value : {Tensor::FromVector<double>({0.1, -2.5}, TensorShape({2})),
                       Tensor::FromVector<int32_t>({70001, -3}, TensorShape({2})), Strings()}) {
    const std::string compressed = Encode(TransferOf(value, true));
    EXPECT_EQ(compressed.size(), Encode(TransferOf(value, false)).size());
    auto back = DecodeMessage(compressed);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_FALSE(back->tensor.compress);
    EXPECT_EQ(back->tensor.value.DebugString(), value.DebugString());
  }
}

// An empty f32 tensor, compressed or not: its elements are zero bytes from
// a null pointer, which the codec must not hand to memcpy (UBSan watches).
TEST(WireTest, EmptyTensorsRoundTrip) {
  for (bool compress : {false, true}) {
    const Tensor empty = Tensor::FromVector<float>({}, TensorShape({0, 3}));
    auto back = DecodeMessage(Encode(TransferOf(empty, compress)));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->tensor.value.shape(), TensorShape({0, 3}));
  }
}

// A compressed transfer claiming more elements than its bytes is refused.
TEST(WireTest, CompressedTransferTruncationIsRefused) {
  const std::string bytes = Encode(TransferOf(Tensor::FromVector<float>({1, 2, 3}, TensorShape({3})), true));
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(DecodeMessage(bytes.substr(0, n)).ok()) << n;
}

// Integers go as varints: the extremes of each width come back whole.
TEST(WireTest, IntegersAtTheirExtremesRoundTrip) {
  Message m = RunStepMessage();
  m.request_id = std::numeric_limits<uint64_t>::max();
  m.run_step.graph_handle = uint64_t{1} << 63;
  m.run_step.run_id = std::numeric_limits<int64_t>::min();
  m.run_step.seed = std::numeric_limits<uint64_t>::max();
  m.run_step.feeds = {Tensor::FromVector<int64_t>({std::numeric_limits<int64_t>::max(), -1}, TensorShape({2}))};
  auto back = DecodeMessage(Encode(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->request_id, m.request_id);
  EXPECT_EQ(back->run_step.graph_handle, m.run_step.graph_handle);
  EXPECT_EQ(back->run_step.run_id, m.run_step.run_id);
  EXPECT_EQ(back->run_step.seed, m.run_step.seed);
  EXPECT_EQ(back->run_step.feeds[0].DebugString(), m.run_step.feeds[0].DebugString());

  Message t = TransferOf(Tensor::Scalar<float>(1), false);
  t.tensor.frame_id = std::numeric_limits<int64_t>::max();
  t.tensor.iteration = -1;
  back = DecodeMessage(Encode(t));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tensor.frame_id, t.tensor.frame_id);
  EXPECT_EQ(back->tensor.iteration, -1);
}

// The layout of net/wire.cc, counted by hand for the message the
// benchmark's 1 KB transfer sends: 8 bytes of preamble (byte order, magic,
// version, kind), request id 1, session id 8, reply address 1, run id 1,
// two empty device names 1 + 1, "w:0" 1 + 3, frame and iteration 1 + 1,
// dead and compressed flags 1 + 1, dtype 1, rank 1, the dimension 256
// (zigzagged to 512, two varint bytes) 2, attachment flag 1: 34 bytes,
// then the 1024 bytes of elements.
TEST(WireTest, ASmallTransferCarriesFewBytesBesideItsElements) {
  Tensor value(HostAllocator(), DType::kF32, TensorShape({256}));
  std::memset(value.data<float>(), 0, value.bytes());
  Message m = TransferOf(value, false);
  m.tensor.run_id = 0;
  EXPECT_EQ(Encode(m).size(), 34u + 1024u);
}

// Shapes a peer sends go through the same checked product as every other
// tensor source (ops/core/checked_size.h), then a cap of 2**40 elements.
// The transfer above has its dtype at byte 29 and its rank (1) at 30,
// then the dimension 256 (two bytes) and the attachment flag.
TEST(WireTest, RefusesShapesWhoseProductOverflowsOrIsTooLarge) {
  Tensor value(HostAllocator(), DType::kF32, TensorShape({256}));
  std::memset(value.data<float>(), 0, value.bytes());
  Message m = TransferOf(value, false);
  m.tensor.run_id = 0;
  const std::string bytes = Encode(m);
  ASSERT_EQ(bytes[30], 1);
  // 2**62 zigzagged is 2**63: nine 0x80 bytes and 0x01; 4 zigzagged is 8.
  const std::string overflow = bytes.substr(0, 30) + "\x02" + std::string(9, '\x80') + "\x01\x08" + bytes.substr(33);
  auto r = DecodeMessage(overflow);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("a received tensor: shape [4611686018427387904, 4] is too large"),
            std::string::npos)
      << r.status().message();
  // 2**21 * 2**20 fits in int64 but is more than any peer may send.
  // Zigzagged: 2**22 is 80 80 80 02, 2**21 is 80 80 80 01.
  const std::string large = bytes.substr(0, 30) + "\x02\x80\x80\x80\x02\x80\x80\x80\x01" + bytes.substr(33);
  EXPECT_EQ(DecodeMessage(large).status().message(),
            "malformed message: tensor of 2199023255552 elements, more than 2**40");
}

TEST(WireTest, RefusesIntegersThatDoNotFit) {
  Message m;
  m.kind = MessageKind::kErrorReply;
  m.status.code = Code::kInternal;
  const std::string bytes = Encode(m);
  // Preamble 8, request id 1, session id 8, reply address 1, status code
  // 1, message 1, span file 1: the span's line (0) is byte 21, then its
  // column, end line, end column and source line, a byte each.
  ASSERT_EQ(bytes.size(), 26u);
  ASSERT_EQ(bytes[21], 0);
  // 2^31 zigzagged is 2^32: varint bytes 80 80 80 80 10.
  const std::string too_big = bytes.substr(0, 21) + "\x80\x80\x80\x80\x10" + bytes.substr(22);
  EXPECT_EQ(DecodeMessage(too_big).status().message(),
            "malformed message: 2147483648 does not fit in a 32-bit integer");
  // Eleven bytes of varint: more than 64 bits, wherever it stands (here the request id).
  const std::string too_long = bytes.substr(0, 8) + std::string(10, '\xff') + '\x01' + bytes.substr(9);
  EXPECT_EQ(DecodeMessage(too_long).status().message(), "malformed message: an integer runs past 64 bits");
}

// ------------------------------------------------------------ attachments

std::vector<Attachment> CopiesOf(const EncodedMessage& m) {
  std::vector<Attachment> out;
  for (const Tensor& t : m.attachments) {
    out.push_back(Attachment::Copy({static_cast<const char*>(t.raw_data()), t.bytes()}));
  }
  return out;
}

// kAttachBytes of f32 and up travel as frames of their own, in the order
// the body names them; smaller ones and strings stay inline.
TEST(WireTest, LargeTensorsTravelAsFramesOfTheirOwn) {
  std::vector<float> big(kAttachBytes / 4 * 3);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.25f - 7;
  std::vector<int64_t> ids(kAttachBytes / 8);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i * i) - 5;
  Message m;
  m.kind = MessageKind::kStepDone;
  m.step_done.fetches = {Tensor::FromVector<float>(big, TensorShape({3, static_cast<int64_t>(big.size() / 3)})),
                         Tensor::Scalar<float>(2.5f), Strings(),
                         Tensor::FromVector<int64_t>(ids, TensorShape({static_cast<int64_t>(ids.size())}))};
  auto encoded = EncodeMessage(m);
  ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
  ASSERT_EQ(encoded->attachments.size(), 2u);
  EXPECT_EQ(encoded->attachments[0].raw_data(), m.step_done.fetches[0].raw_data());  // not copied
  EXPECT_LT(encoded->head.size(), 512u);
  EXPECT_EQ(encoded->bytes(), encoded->head.size() + big.size() * 4 + ids.size() * 8);

  std::vector<Attachment> frames = CopiesOf(*encoded);
  const char* first = frames[0].data;
  auto back = DecodeMessage(encoded->head, std::move(frames));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->step_done.fetches.size(), 4u);
  const Tensor& f = back->step_done.fetches[0];
  EXPECT_EQ(f.shape(), TensorShape({3, static_cast<int64_t>(big.size() / 3)}));
  EXPECT_EQ(f.raw_data(), first);  // used where it arrived
  for (size_t i = 0; i < big.size(); ++i) ASSERT_EQ(f.data<float>()[i], big[i]) << i;
  EXPECT_EQ(back->step_done.fetches[1].scalar<float>(), 2.5f);
  EXPECT_EQ(back->step_done.fetches[2].data<std::string>()[2], "a longer string");
  const Tensor& g = back->step_done.fetches[3];
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(g.data<int64_t>()[i], ids[i]) << i;
}

// A frame that is not aligned for the dtype is copied, not used in place.
TEST(WireTest, AMisalignedFrameIsCopied) {
  std::vector<double> values(kAttachBytes / 8);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 1.0 / (1.0 + static_cast<double>(i));
  Message m;
  m.kind = MessageKind::kTensor;
  m.tensor.tensor_name = "x:0";
  m.tensor.value = Tensor::FromVector<double>(values, TensorShape({static_cast<int64_t>(values.size())}));
  auto encoded = EncodeMessage(m);
  ASSERT_TRUE(encoded.ok());
  ASSERT_EQ(encoded->attachments.size(), 1u);
  auto storage = std::make_shared<std::string>(std::string(1, '\0') + std::string(
                                                   static_cast<const char*>(encoded->attachments[0].raw_data()),
                                                   values.size() * 8));
  Attachment odd{storage->data() + 1, storage->size() - 1, storage};
  auto back = DecodeMessage(encoded->head, {odd});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const Tensor& t = back->tensor.value;
  EXPECT_NE(t.raw_data(), static_cast<void*>(odd.data));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % alignof(double), 0u);
  for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(t.data<double>()[i], values[i]) << i;
}

TEST(WireTest, AttachmentsMustMatchTheirTensors) {
  Message m;
  m.kind = MessageKind::kTensor;
  m.tensor.tensor_name = "b:0";
  Tensor flags(HostAllocator(), DType::kBool, TensorShape({static_cast<int64_t>(kAttachBytes)}));
  std::memset(flags.raw_data(), 1, kAttachBytes);
  m.tensor.value = flags;
  auto encoded = EncodeMessage(m);
  ASSERT_TRUE(encoded.ok());
  const std::string whole(static_cast<const char*>(flags.raw_data()), kAttachBytes);
  ASSERT_TRUE(DecodeMessage(encoded->head, {Attachment::Copy(whole)}).ok());

  EXPECT_EQ(DecodeMessage(encoded->head).status().message(), "malformed message: a tensor's frame is missing");
  EXPECT_EQ(DecodeMessage(encoded->head, {Attachment::Copy(whole.substr(1))}).status().message(),
            "malformed message: a tensor of 8192 bytes arrived in a frame of 8191");
  EXPECT_EQ(DecodeMessage(encoded->head, {Attachment::Copy(whole), Attachment::Copy("x")}).status().message(),
            "1 frames after the end of a Tensor message");
  std::string two = whole;
  two[100] = 2;
  EXPECT_EQ(DecodeMessage(encoded->head, {Attachment::Copy(two)}).status().message(),
            "malformed message: bool tensor element 100 is 2");
  // A message without attachments may not be given any.
  EXPECT_FALSE(DecodeMessage(Encode(TransferOf(Tensor::Scalar<float>(1), false)), {Attachment::Copy("x")}).ok());
}

TEST(WireTest, AStringTensorCannotBeAttached) {
  const std::string head = Encode(TransferOf(Strings(), false));
  // The attachment flag is the byte after the last dimension, just before
  // the first string's one-byte length (0: the empty string).
  const size_t flag = head.size() - (1 + 0) - (1 + 2) - (1 + 15) - 1;
  ASSERT_EQ(head[flag], 0);
  std::string attached = head.substr(0, flag) + '\1';
  EXPECT_EQ(DecodeMessage(attached, {Attachment::Copy(std::string(24, 'x'))}).status().message(),
            "malformed message: a string tensor cannot come in a frame of its own");
}

}  // namespace
}  // namespace tfg::net
