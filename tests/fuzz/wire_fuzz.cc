// libFuzzer entry for the wire decoder (net/wire.cc, net/wire_messages.cc)
// and the graph decoder behind it (net/graph_codec.cc): any bytes a peer
// sends must decode to a message or come back as an error value, never
// crash, read out of bounds or allocate from a length the bytes do not
// back. A message that decodes must encode again, and decode to the same
// encoding (the format has one encoding per message).
//
// An input is the frames of one message (the head, then attachments),
// each as a u32 little-endian length and its bytes; bytes left over that
// a length does not cover are one last frame.
//
// With TFG_WIRE_SEEDS=DIR set, the binary writes a few valid messages into
// DIR, the seeds scripts/fuzz starts from, and exits.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "net/graph_codec.h"
#include "net/protocol.h"

namespace {

using namespace tfg;
using namespace tfg::net;

std::vector<Message> Seeds() {
  std::vector<Message> out;
  Message run;
  run.kind = MessageKind::kRunStep;
  run.reply_to = "tcp://127.0.0.1:7001";
  run.run_step.feeds = {Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})),
                        Tensor::FromVector<std::string>({"a", ""}, TensorShape({2})),
                        Tensor::FromVector<bool>({true}, TensorShape({1}))};
  out.push_back(run);
  Message reg;
  reg.kind = MessageKind::kRegisterGraph;
  NodeDef a;
  a.name = "a";
  a.op = "constant";
  a.attrs["value"] = Tensor::Scalar<float>(1);
  a.attrs["dtype"] = DType::kF32;
  a.output_shapes = {PartialShape::Scalar()};
  a.span = WireSpan{"s.tfg", 2, 1, 2, 5, "a = 1"};
  NodeDef b;
  b.name = "b";
  b.op = "neg";
  b.inputs = {{0, 0}};
  b.control_inputs = {0};
  reg.register_graph.graph.nodes = {a, b};
  reg.register_graph.fetches = {"b:0"};
  out.push_back(reg);
  Message t;
  t.kind = MessageKind::kTensor;
  t.tensor.tensor_name = "x:0";
  t.tensor.value = Tensor::FromVector<int64_t>({5, 6}, TensorShape({2}));
  out.push_back(t);
  t.tensor.value = Tensor::FromVector<float>(std::vector<float>(kAttachBytes / 4, 0.5f),
                                             TensorShape({2, static_cast<int64_t>(kAttachBytes / 8)}));
  out.push_back(t);  // its elements in a frame of their own
  Message done;
  done.kind = MessageKind::kStepDone;
  done.step_done.status = ToWire(Status(Code::kInvalidArgument, "bad"));
  out.push_back(done);
  Message hello;
  hello.kind = MessageKind::kHello;
  hello.hello.cluster = {{"/job:ps/replica:0/task:0", "tcp://127.0.0.1:7001"}};
  out.push_back(hello);
  Message wrong_version;
  wrong_version.kind = MessageKind::kWrongVersion;
  wrong_version.status.message = "speaks another version";
  out.push_back(wrong_version);
  return out;
}

void AppendFrame(std::string& out, std::string_view frame) {
  const auto n = static_cast<uint32_t>(frame.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out.append(frame);
}

std::string_view Bytes(const Tensor& t) { return {static_cast<const char*>(t.raw_data()), t.bytes()}; }

std::string Serialize(const EncodedMessage& m) {
  std::string out;
  AppendFrame(out, m.head);
  for (const Tensor& t : m.attachments) AppendFrame(out, Bytes(t));
  return out;
}

std::vector<std::string_view> SplitFrames(std::string_view in) {
  std::vector<std::string_view> frames;
  while (!in.empty()) {
    uint32_t n = 0;
    for (size_t i = 0; i < 4 && i < in.size(); ++i) n |= static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << (8 * i);
    if (in.size() < 4 || n > in.size() - 4) {
      frames.push_back(in);
      break;
    }
    frames.push_back(in.substr(4, n));
    in.remove_prefix(4 + n);
  }
  return frames;
}

Result<Message> Decode(const EncodedMessage& m) {
  std::vector<Attachment> attachments;
  for (const Tensor& t : m.attachments) attachments.push_back(Attachment::Copy(Bytes(t)));
  return DecodeMessage(m.head, std::move(attachments));
}

bool SameEncoding(const EncodedMessage& a, const EncodedMessage& b) { return Serialize(a) == Serialize(b); }

void WriteSeeds(const char* dir) {
  int n = 0;
  for (const Message& m : Seeds()) {
    auto encoded = EncodeMessage(m);
    if (!encoded.ok()) {
      std::fprintf(stderr, "wire_fuzz: cannot encode a seed: %s\n", encoded.status().ToString().c_str());
      std::exit(1);
    }
    std::ofstream(std::string(dir) + "/seed-" + std::to_string(n++), std::ios::binary) << Serialize(*encoded);
  }
  std::exit(0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TFG_WIRE_SEEDS")) WriteSeeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> frames = SplitFrames({reinterpret_cast<const char*>(data), size});
  if (frames.empty()) return 0;
  std::vector<Attachment> attachments;
  for (size_t i = 1; i < frames.size(); ++i) attachments.push_back(Attachment::Copy(frames[i]));
  (void)DecodeHeader(frames[0]);
  auto m = DecodeMessage(frames[0], std::move(attachments));
  if (!m.ok()) return 0;
  if (m->kind == MessageKind::kRegisterGraph) (void)DecodeGraph(m->register_graph.graph);
  auto again = EncodeMessage(*m);
  if (!again.ok()) {
    // Only a live transfer without a value may fail to encode, and the
    // decoder never makes one.
    std::abort();
  }
  auto twice = Decode(*again);
  if (!twice.ok()) std::abort();
  auto third = EncodeMessage(*twice);
  if (!third.ok() || !SameEncoding(*third, *again)) std::abort();
  return 0;
}

extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1:detect_leaks=0"; }
