// The master/worker protocol: every message kind, the protocol version and
// the decoded form of each message. This is the one header that says what
// goes over the wire (net/wire.cc encodes and validates it; the layout of
// the bytes is documented there). A change to any message here bumps
// kProtocolVersion: peers of different versions refuse each other at the
// handshake instead of misreading bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/checked_size.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::net {

inline constexpr uint32_t kMagic = 0x4e474654;  // "TFGN" little-endian
inline constexpr uint16_t kProtocolVersion = 4;
// From this version on, a later version must keep the message's preamble
// and envelope (net/wire.cc), kHello's number, and kWrongVersion's number
// and body. Then any two versions from here on can still read each
// other's Hello envelope and WrongVersion, and a master learns why a
// worker will not serve it, instead of waiting out a timeout.
inline constexpr uint16_t kFirstStableVersion = 4;
// No message may be larger, its head and every attachment's frame
// together: a length in a message is never trusted beyond the bytes that
// actually arrived, and nothing arrives beyond this.
inline constexpr size_t kMaxMessageBytes = size_t{1} << 30;
// Every tensor source of tfg caps rank at the same 64 (checkpoints too).
inline constexpr int kMaxRank = checked::kMaxRank;
// A numeric tensor of at least this many bytes travels as a frame of its
// own (an attachment), straight from and into tensor buffers. Below it the
// elements are copied into the message: two copies of a few KB cost less
// than a frame, and small frames arrive at any alignment.
inline constexpr size_t kAttachBytes = 8192;
// Frames after the head that one message may have.
inline constexpr size_t kMaxAttachments = kMaxMessageBytes / kAttachBytes;

enum class MessageKind : uint8_t {
  kHello = 1,          // master -> worker: open a session (version, op registry hash, cluster)
  kHelloReply,         // worker -> master
  kRegisterGraph,      // master -> worker: a partition to keep under a graph handle
  kRegisterReply,      // worker -> master
  kRunStep,            // master -> worker: run a registered partition as one step of a run
  kStepDone,           // worker -> master: the step's status and fetched tensors
  kTensor,             // any -> any: a _send's tensor pushed to the receiving task
  kAbortStep,          // master -> worker: cancel a run's step
  kHeartbeat,          // master -> worker, every heartbeat interval
  kHeartbeatAck,       // worker -> master
  kCloseSession,       // master -> worker: free the session's state now
  kErrorReply,         // any -> sender: the message could not be used (malformed, unknown ids)
  // worker -> master, in the worker's version: a Hello of another version
  // (kFirstStableVersion or later) was refused; the body is the reason.
  kWrongVersion = 255,
};
inline constexpr uint8_t kLastMessageKind = static_cast<uint8_t>(MessageKind::kErrorReply);
const char* MessageKindName(MessageKind kind);

// A source span as it crosses the wire: the source line's text travels
// with it, so the receiver can print the caret excerpt without the script.
struct WireSpan {
  std::string file;
  int32_t line = 0, col = 0, end_line = 0, end_col = 0;
  std::string line_text;
};
// Invalid (empty) when the span is.
WireSpan ToWireSpan(const SourceSpan& s);
// A span whose file holds only `line_text`, at line `line`: enough for the
// caret excerpt of FormatDiagnostic. Invalid (empty) when `file` is empty.
SourceSpan SpanFromWire(const WireSpan& w);

// A Status as it crosses the wire.
struct WireStatus {
  Code code = Code::kOk;
  std::string message;
  WireSpan span;
};
WireStatus ToWire(const Status& s);
Status FromWire(const WireStatus& w);

struct WireInput {
  int32_t node = 0;    // index into GraphDef::nodes
  int32_t output = 0;  // output index on it
};

// One node of a partition, as net/graph_codec.h writes and rebuilds it.
struct NodeDef {
  std::string name;
  std::string op;
  std::vector<WireInput> inputs;
  std::vector<int32_t> control_inputs;
  AttrMap attrs;
  std::string requested_device;
  std::string assigned_device;
  std::vector<PartialShape> output_shapes;
  WireSpan span;
};

struct GraphDef {
  std::vector<NodeDef> nodes;
};

struct Hello {
  uint64_t registry_hash = 0;  // OpRegistryHash(): both binaries know the same ops
  std::string task;            // the worker's own name, "/job:worker/replica:0/task:1"
  // Every task's name and address, the master's own included
  // ("/job:localhost/replica:0/task:0").
  std::vector<std::pair<std::string, std::string>> cluster;
  double heartbeat_seconds = 1;
  // --compress-transfers on the master: every task sends f32 transfers
  // as their upper 16 bits (white paper §5.5).
  bool compress_transfers = false;
};

struct RegisterGraph {
  uint64_t graph_handle = 0;  // chosen by the master, unique in its session
  std::string device;         // the full name the partition was placed on
  GraphDef graph;
  std::vector<std::string> feeds;    // "node:output" in the partition
  std::vector<std::string> fetches;  // "node:output"
  std::vector<std::string> targets;  // node names
};

struct RunStep {
  uint64_t graph_handle = 0;
  int64_t run_id = 0;
  uint64_t seed = 0;
  double timeout_seconds = 0;
  std::vector<Tensor> feeds;
};

struct StepDone {
  int64_t run_id = 0;
  WireStatus status;
  std::vector<Tensor> fetches;
};

struct TensorTransfer {
  int64_t run_id = 0;
  std::string src_device, dst_device, tensor_name;
  int64_t frame_id = 0, iteration = 0;
  bool is_dead = false;
  // Sender's choice: an f32 value goes on the wire as the upper 16 bits of
  // each element (truncated, as white paper §5.5) and arrives with the low
  // 16 bits zero. Other dtypes are sent whole whatever this says.
  bool compress = false;
  Tensor value;  // uninitialized when dead
};

struct AbortStep {
  int64_t run_id = 0;
  WireStatus status;
};

// One message: the envelope every kind shares, and the body of its kind
// (only the member of `kind` is meaningful).
struct Message {
  MessageKind kind = MessageKind::kHeartbeat;
  // The sender's protocol version. Decoded messages have ours, except a
  // kWrongVersion, and the envelope DecodeHeader reads from any stable
  // version (whose kind may then be one this version does not know).
  uint16_t version = kProtocolVersion;
  uint64_t request_id = 0;  // a reply carries its request's id
  uint64_t session_id = 0;  // the master's session (random, per master process)
  // The sender's listening address; empty on a kTensor (a transfer is
  // never answered, and it is the message that comes by the thousand).
  std::string reply_to;
  Hello hello;
  RegisterGraph register_graph;
  RunStep run_step;
  StepDone step_done;
  TensorTransfer tensor;
  AbortStep abort;
  WireStatus status;  // kHelloReply, kRegisterReply, kErrorReply, kWrongVersion (its message only)
  uint64_t registry_hash = 0;  // kHelloReply
};

// A message as it goes on the wire: `head` holds the envelope and body;
// each attachment is a tensor whose elements follow as a frame of their
// own, in the order the body names them. Attachments are sent from the
// tensors' own buffers (which they keep alive until sent), not copied.
struct EncodedMessage {
  std::string head;
  std::vector<Tensor> attachments;
  size_t bytes() const;
};

// A frame received after a head: its bytes, and what keeps them alive (the
// transport's buffer). A tensor decoded from it keeps `owner` and uses the
// bytes in place when they are aligned for its dtype.
struct Attachment {
  char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<void> owner;
  // An attachment holding a copy of `bytes` (tests, the fuzzer).
  static Attachment Copy(std::string_view bytes);
};

// Encodes `m` (never fails on a well-formed message; an uninitialized
// tensor where a value is required is an error).
Result<EncodedMessage> EncodeMessage(const Message& m);
// The same, with the head written from the start of `buffer` (grown as
// needed, never shrunk: a buffer kept from message to message is allocated
// once) and its size returned; the tensors to attach are appended to
// `attachments` (on an error, some may have been).
Result<size_t> EncodeMessage(const Message& m, std::string& buffer, std::vector<Tensor>& attachments);
// Decodes and validates every field: magic, version, kind, each length
// against the bytes left, dtypes, ranks, dims, element counts, attr kinds,
// and each attachment's size against its tensor (every one used, none
// missing). Anything else comes back as an InvalidArgument error naming
// what was wrong; nothing received is trusted.
Result<Message> DecodeMessage(std::string_view head, std::vector<Attachment> attachments = {});
// The same, into `m` (a fresh Message): a receiver that handles many
// messages does not move each one out of a Result.
Status DecodeMessage(std::string_view head, std::vector<Attachment> attachments, Message& m);

// The envelope alone (kind, ids, reply address), body not read: lets a
// receiver answer a message whose body it refuses, or whose version (any
// from kFirstStableVersion on) it does not speak.
Result<Message> DecodeHeader(std::string_view head);

// A hash of every registered op's name and signature: two binaries with
// equal hashes build the same nodes from the same NodeDefs.
uint64_t OpRegistryHash();

}  // namespace tfg::net
