// Message bodies on the wire (the layout is described in net/wire.cc) and
// the two entry points, EncodeMessage and DecodeMessage.
#include <algorithm>

#include "net/wire_archive.h"
#include "ops/core/op_registry.h"

namespace tfg::net {
namespace wire {

void Save(Out& ar, const WireStatus& s);
void Save(Out& ar, const WireSpan& s);
void Save(Out& ar, const NodeDef& n);

constexpr int32_t kMaxLine = std::numeric_limits<int32_t>::max();

void Save(Out& ar, const WireSpan& s) {
  Save(ar, s.file);
  ar(s.line, s.col, s.end_line, s.end_col);
  Save(ar, s.line_text);
}
WireSpan LoadSpan(In& in) {
  WireSpan s;
  s.file = LoadString(in, "span file");
  s.line = LoadInt32(in, 0, kMaxLine, "line");
  s.col = LoadInt32(in, 0, kMaxLine, "column");
  s.end_line = LoadInt32(in, 0, kMaxLine, "end line");
  s.end_col = LoadInt32(in, 0, kMaxLine, "end column");
  s.line_text = LoadString(in, "source line");
  return s;
}

// A status is its code and message, then its span.
void Save(Out& ar, const WireStatus& s) {
  ar(static_cast<uint8_t>(s.code));
  Save(ar, s.message);
  Save(ar, s.span);
}
WireStatus LoadStatus(In& in) {
  WireStatus s;
  const auto code = in.Read<uint8_t>();
  if (code > static_cast<uint8_t>(Code::kDataLoss)) Refuse("unknown status code {}", code);
  s.code = static_cast<Code>(code);
  s.message = LoadString(in, "status message");
  s.span = LoadSpan(in);
  return s;
}

// Input indices are checked against the graph by net/graph_codec.cc; here
// only that they are not negative.
void Save(Out& ar, const NodeDef& n) {
  Save(ar, n.name);
  Save(ar, n.op);
  ar(static_cast<uint64_t>(n.inputs.size()));
  for (const WireInput& i : n.inputs) ar(i.node, i.output);
  ar(static_cast<uint64_t>(n.control_inputs.size()));
  for (int32_t c : n.control_inputs) ar(c);
  SaveAttrs(ar, n.attrs);
  Save(ar, n.requested_device);
  Save(ar, n.assigned_device);
  ar(static_cast<uint64_t>(n.output_shapes.size()));
  for (const PartialShape& s : n.output_shapes) Save(ar, s);
  Save(ar, n.span);
}
NodeDef LoadNode(In& in) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  NodeDef n;
  n.name = LoadString(in, "node name");
  n.op = LoadString(in, "op name");
  n.inputs.resize(in.Count(2, "inputs"));
  for (WireInput& i : n.inputs) {
    i.node = LoadInt32(in, 0, kMax, "input node");
    i.output = LoadInt32(in, 0, kMax, "input output index");
  }
  n.control_inputs.resize(in.Count(1, "control inputs"));
  for (int32_t& c : n.control_inputs) c = LoadInt32(in, 0, kMax, "control input");
  n.attrs = LoadAttrs(in);
  n.requested_device = LoadString(in, "requested device");
  n.assigned_device = LoadString(in, "assigned device");
  n.output_shapes.resize(in.Count(1, "output shapes"));
  for (PartialShape& s : n.output_shapes) s = LoadPartialShape(in);
  n.span = LoadSpan(in);
  return n;
}

void SaveHello(Out& ar, const Hello& h) {
  ar(Fixed(h.registry_hash));
  Save(ar, h.task);
  ar(static_cast<uint64_t>(h.cluster.size()));
  for (const auto& [task, address] : h.cluster) {
    Save(ar, task);
    Save(ar, address);
  }
  ar(h.heartbeat_seconds);
  SaveBool(ar, h.compress_transfers);
}
Hello LoadHello(In& in) {
  Hello h;
  h.registry_hash = in.ReadFixed<uint64_t>();
  h.task = LoadString(in, "task");
  h.cluster.resize(in.Count(2, "cluster"));
  for (auto& [task, address] : h.cluster) {
    task = LoadString(in, "task");
    address = LoadString(in, "address");
  }
  h.heartbeat_seconds = in.Read<double>();
  if (!(h.heartbeat_seconds > 0 && h.heartbeat_seconds <= 3600)) Refuse("heartbeat interval out of range");
  h.compress_transfers = LoadBool(in, "compress_transfers");
  return h;
}

void SaveRegister(Out& ar, const RegisterGraph& r) {
  ar(r.graph_handle);
  Save(ar, r.device);
  ar(static_cast<uint64_t>(r.graph.nodes.size()));
  for (const NodeDef& n : r.graph.nodes) Save(ar, n);
  SaveStrings(ar, r.feeds);
  SaveStrings(ar, r.fetches);
  SaveStrings(ar, r.targets);
}
RegisterGraph LoadRegister(In& in) {
  RegisterGraph r;
  r.graph_handle = in.Read<uint64_t>();
  r.device = LoadString(in, "device");
  r.graph.nodes.resize(in.Count(14, "nodes"));
  for (NodeDef& n : r.graph.nodes) n = LoadNode(in);
  r.feeds = LoadStrings(in, "feeds");
  r.fetches = LoadStrings(in, "fetches");
  r.targets = LoadStrings(in, "targets");
  return r;
}

void SaveRunStep(Out& ar, const RunStep& r) {
  ar(r.graph_handle, r.run_id, Fixed(r.seed), r.timeout_seconds);
  SaveTensors(ar, r.feeds);
}
RunStep LoadRunStep(In& in) {
  RunStep r;
  r.graph_handle = in.Read<uint64_t>();
  r.run_id = in.Read<int64_t>();
  r.seed = in.ReadFixed<uint64_t>();
  r.timeout_seconds = in.Read<double>();
  if (!(r.timeout_seconds >= 0 && r.timeout_seconds <= 1e7)) Refuse("step timeout out of range");
  r.feeds = LoadTensors(in);
  return r;
}

void SaveTransfer(Out& ar, const TensorTransfer& t) {
  ar(t.run_id);
  Save(ar, t.src_device);
  Save(ar, t.dst_device);
  Save(ar, t.tensor_name);
  ar(t.frame_id, t.iteration);
  SaveBool(ar, t.is_dead);
  if (t.is_dead) return;
  // The flag on the wire says what the bytes are, not what was asked.
  const bool truncated = t.compress && t.value.IsInitialized() && t.value.dtype() == DType::kF32;
  SaveBool(ar, truncated);
  if (truncated) return SaveTruncatedF32(ar, t.value);
  SaveTensor(ar, t.value);
}
// Into the message's own body: a transfer is the one message that comes
// by the thousand, and moving it out of a return value costs.
void LoadTransfer(In& in, TensorTransfer& t) {
  t.run_id = in.Read<int64_t>();
  t.src_device = LoadString(in, "source device");
  t.dst_device = LoadString(in, "destination device");
  t.tensor_name = LoadString(in, "tensor name");
  t.frame_id = in.Read<int64_t>();
  t.iteration = in.Read<int64_t>();
  t.is_dead = LoadBool(in, "is_dead");
  if (t.is_dead) return;
  t.compress = LoadBool(in, "compressed");
  t.value = t.compress ? LoadTruncatedF32(in) : LoadTensor(in);
}

void SaveBody(Out& ar, const Message& m) {
  switch (m.kind) {
    case MessageKind::kHello: return SaveHello(ar, m.hello);
    case MessageKind::kHelloReply: Save(ar, m.status); ar(Fixed(m.registry_hash)); return;
    case MessageKind::kRegisterGraph: return SaveRegister(ar, m.register_graph);
    case MessageKind::kRegisterReply:
    case MessageKind::kErrorReply: return Save(ar, m.status);
    case MessageKind::kRunStep: return SaveRunStep(ar, m.run_step);
    case MessageKind::kStepDone:
      ar(m.step_done.run_id);
      Save(ar, m.step_done.status);
      return SaveTensors(ar, m.step_done.fetches);
    case MessageKind::kTensor: return SaveTransfer(ar, m.tensor);
    case MessageKind::kAbortStep: ar(m.abort.run_id); return Save(ar, m.abort.status);
    case MessageKind::kHeartbeat:
    case MessageKind::kHeartbeatAck:
    case MessageKind::kCloseSession: return;
    case MessageKind::kWrongVersion: return Save(ar, m.status.message);
  }
}

void LoadBody(In& in, Message& m) {
  switch (m.kind) {
    case MessageKind::kHello: m.hello = LoadHello(in); return;
    case MessageKind::kHelloReply:
      m.status = LoadStatus(in);
      m.registry_hash = in.ReadFixed<uint64_t>();
      return;
    case MessageKind::kRegisterGraph: m.register_graph = LoadRegister(in); return;
    case MessageKind::kRegisterReply:
    case MessageKind::kErrorReply: m.status = LoadStatus(in); return;
    case MessageKind::kRunStep: m.run_step = LoadRunStep(in); return;
    case MessageKind::kStepDone:
      m.step_done.run_id = in.Read<int64_t>();
      m.step_done.status = LoadStatus(in);
      m.step_done.fetches = LoadTensors(in);
      return;
    case MessageKind::kTensor: return LoadTransfer(in, m.tensor);
    case MessageKind::kAbortStep:
      m.abort.run_id = in.Read<int64_t>();
      m.abort.status = LoadStatus(in);
      return;
    case MessageKind::kHeartbeat:
    case MessageKind::kHeartbeatAck:
    case MessageKind::kCloseSession: return;
    case MessageKind::kWrongVersion:
      m.status.code = Code::kFailedPrecondition;
      m.status.message = LoadString(in, "reason");
      return;
  }
}

}  // namespace wire

size_t EncodedMessage::bytes() const {
  size_t n = head.size();
  for (const Tensor& t : attachments) n += t.bytes();
  return n;
}

Attachment Attachment::Copy(std::string_view bytes) {
  auto copy = std::make_shared<std::string>(bytes);
  return Attachment{copy->data(), copy->size(), copy};
}

namespace {

// This thread's archives, started again for each message (see
// wire::OutputArchive).
wire::Out& ThreadOut() {
  thread_local wire::Out out;
  return out;
}
wire::In& ThreadIn() {
  thread_local wire::In in;
  return in;
}

// Lets go of the received frames however decoding ends.
struct FinishOnExit {
  wire::In& in;
  ~FinishOnExit() { in.Finish(); }
};

}  // namespace

Result<size_t> EncodeMessage(const Message& m, std::string& buffer, std::vector<Tensor>& attachments) {
  size_t size = 0;
  const size_t first_attachment = attachments.size();
  try {
    wire::Out& ar = ThreadOut();
    ar.Start(buffer, attachments);
    ar(wire::Fixed(kMagic), wire::Fixed(kProtocolVersion), static_cast<uint8_t>(m.kind), m.request_id,
       wire::Fixed(m.session_id));
    wire::Save(ar, m.reply_to);
    wire::SaveBody(ar, m);
    size = ar.ar.size();
  } catch (const std::exception& e) {
    return InvalidArgument("cannot encode a {} message: {}", MessageKindName(m.kind), e.what());
  }
  // The receiver refuses a message whose frames add up to more.
  size_t total = size;
  for (size_t i = first_attachment; i < attachments.size(); ++i) total += attachments[i].bytes();
  if (total > kMaxMessageBytes || attachments.size() - first_attachment > kMaxAttachments) {
    return Error(Code::kResourceExhausted, "a {} message of {} bytes is above the limit of {}",
                 MessageKindName(m.kind), total, kMaxMessageBytes);
  }
  return size;
}

Result<EncodedMessage> EncodeMessage(const Message& m) {
  EncodedMessage out;
  TFG_ASSIGN_OR_RETURN(size_t size, EncodeMessage(m, out.head, out.attachments));
  out.head.resize(size);
  return out;
}

namespace {

bool IsMessageKind(uint8_t kind) {
  return (kind >= 1 && kind <= kLastMessageKind) || kind == static_cast<uint8_t>(MessageKind::kWrongVersion);
}

// The preamble and envelope. A message of another version is refused
// unless it is a WrongVersion, or `any_stable_version` asks for the
// envelope of any version that keeps this layout (its kind unchecked).
void LoadHeader(wire::In& in, Message& m, bool any_stable_version) {
  if (in.ReadFixed<uint32_t>() != kMagic) wire::Refuse("not a tfg message (bad magic)");
  m.version = in.ReadFixed<uint16_t>();
  const auto kind = in.Read<uint8_t>();
  const bool ours = m.version == kProtocolVersion;
  const bool stable = m.version >= kFirstStableVersion;
  if (!ours && !(stable && (any_stable_version || kind == static_cast<uint8_t>(MessageKind::kWrongVersion)))) {
    wire::Refuse("protocol version {} (this tfg speaks {})", m.version, kProtocolVersion);
  }
  if (ours && !IsMessageKind(kind)) wire::Refuse("unknown message kind {}", kind);
  m.kind = static_cast<MessageKind>(kind);
  m.request_id = in.Read<uint64_t>();
  m.session_id = in.ReadFixed<uint64_t>();
  m.reply_to = wire::LoadString(in, "reply address");
}

}  // namespace

Result<Message> DecodeHeader(std::string_view head) {
  Message m;
  wire::In& in = ThreadIn();
  FinishOnExit finish{in};
  try {
    in.Start(head, {});
    LoadHeader(in, m, /*any_stable_version=*/true);
  } catch (const std::exception& e) {
    return InvalidArgument("malformed message: {}", e.what());
  }
  return m;
}

Status DecodeMessage(std::string_view head, std::vector<Attachment> attachments, Message& m) {
  if (head.size() > kMaxMessageBytes) return InvalidArgument("message of {} bytes is too large", head.size());
  wire::In& in = ThreadIn();
  FinishOnExit finish{in};
  try {
    in.Start(head, std::move(attachments));
    LoadHeader(in, m, /*any_stable_version=*/false);
    wire::LoadBody(in, m);
    if (in.left() != 0) {
      return InvalidArgument("{} bytes after the end of a {} message", in.left(), MessageKindName(m.kind));
    }
    if (const size_t extra = in.attachments.size() - in.next_attachment; extra != 0) {
      return InvalidArgument("{} frames after the end of a {} message", extra, MessageKindName(m.kind));
    }
  } catch (const std::exception& e) {
    return InvalidArgument("malformed message: {}", e.what());
  }
  return Status::OK();
}

Result<Message> DecodeMessage(std::string_view head, std::vector<Attachment> attachments) {
  Message m;
  TFG_RETURN_IF_ERROR(DecodeMessage(head, std::move(attachments), m));
  return m;
}

const char* MessageKindName(MessageKind kind) {
  switch (kind) {
    case MessageKind::kHello: return "Hello";
    case MessageKind::kHelloReply: return "HelloReply";
    case MessageKind::kRegisterGraph: return "RegisterGraph";
    case MessageKind::kRegisterReply: return "RegisterReply";
    case MessageKind::kRunStep: return "RunStep";
    case MessageKind::kStepDone: return "StepDone";
    case MessageKind::kTensor: return "Tensor";
    case MessageKind::kAbortStep: return "AbortStep";
    case MessageKind::kHeartbeat: return "Heartbeat";
    case MessageKind::kHeartbeatAck: return "HeartbeatAck";
    case MessageKind::kCloseSession: return "CloseSession";
    case MessageKind::kErrorReply: return "ErrorReply";
    case MessageKind::kWrongVersion: return "WrongVersion";
  }
  return "unknown";
}

WireSpan ToWireSpan(const SourceSpan& s) {
  WireSpan w;
  if (!s.valid()) return w;
  w.file = s.file->path();
  w.line = s.line;
  w.col = s.col;
  w.end_line = s.end_line;
  w.end_col = s.end_col;
  w.line_text = std::string(s.file->Line(s.line));
  return w;
}

WireStatus ToWire(const Status& s) {
  WireStatus w;
  w.code = s.code();
  if (s.ok()) return w;
  w.message = s.message();
  w.span = ToWireSpan(s.span());
  return w;
}

// The span points into a stand-in file holding only the failing line, at
// its line number, so the caret excerpt prints as on the sending side.
SourceSpan SpanFromWire(const WireSpan& w) {
  if (w.file.empty() || w.line <= 0 || w.line > (1 << 20)) return {};
  std::string text(static_cast<size_t>(w.line - 1), '\n');
  text += w.line_text;
  SourceSpan span;
  span.file = std::make_shared<SourceFile>(w.file, std::move(text));
  span.line = w.line;
  span.col = w.col;
  span.end_line = w.end_line;
  span.end_col = w.end_col;
  return span;
}

Status FromWire(const WireStatus& w) {
  if (w.code == Code::kOk) return Status::OK();
  return Status(w.code, w.message, SpanFromWire(w.span));
}

uint64_t OpRegistryHash() {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view s) {
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    mix(op->name);
    for (const ArgDef& a : op->inputs) mix(a.name + ":" + a.type);
    for (const ArgDef& a : op->outputs) mix(a.name + ":" + a.type);
    for (const AttrDef& a : op->attrs) mix(a.name + ":" + std::string(AttrTypeName(a.type)));
  }
  return h;
}

}  // namespace tfg::net
