// The wire format read here is ZMTP 3.1 (rfc.zeromq.org/spec/37): a
// 64-byte greeting, then frames, each a flags byte (MORE, LONG, COMMAND),
// a size on 1 byte or (LONG) 8 bytes big-endian, and the bytes. Commands
// are a name (length byte, then the name) and a body.
#include "net/zmtp_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "net/refusal_log.h"
#include "ops/core/memory_budget.h"

namespace tfg::net {
namespace {

constexpr uint8_t kMore = 0x01, kLong = 0x02, kCommand = 0x04;
constexpr size_t kGreetingBytes = 64;
// The reader's own buffer: frame headers, commands and small frames pass
// through it. A frame with at least kDirectBytes still to come is read
// straight into its own buffer once this one is empty.
constexpr size_t kBufferBytes = 64 << 10;
constexpr size_t kDirectBytes = 16 << 10;
// A frame's buffer starts at most this large and doubles as its bytes
// arrive (glibc moves a large one's pages rather than copying them), so a
// size field claiming 1 GiB holds nothing until the bytes come.
constexpr size_t kFirstFrameBytes = 1 << 20;

std::string Command(std::string_view name, std::string_view data) {
  std::string body;
  body += static_cast<char>(name.size());
  body.append(name);
  body.append(data);
  std::string out;
  if (body.size() <= 255) {
    out += static_cast<char>(kCommand);
    out += static_cast<char>(body.size());
  } else {
    out += static_cast<char>(kCommand | kLong);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((uint64_t{body.size()} >> shift) & 0xff);
  }
  return out + body;
}

std::string Property(std::string_view name, std::string_view value) {
  std::string out(1, static_cast<char>(name.size()));
  out.append(name);
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value.size() >> shift) & 0xff);
  return out.append(value);
}

uint32_t BigEndian32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}

bool SameName(std::string_view a, std::string_view b) {  // property names ignore case
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// A finished frame's buffer, given up when the last tensor made from it is
// done; its bytes were counted against the memory budget (hint: the size).
void FreeFrame(void* data, void* hint) {
  std::free(data);
  ReleaseMemory(reinterpret_cast<uintptr_t>(hint));
}

Status Broken(std::string_view what) { return InvalidArgument("broke ZeroMQ's protocol: {}", what); }

}  // namespace

std::string ZmtpServerHello() {
  std::string greeting(kGreetingBytes, '\0');
  greeting[0] = static_cast<char>(0xff);
  greeting[9] = 0x7f;
  greeting[10] = 3;  // ZMTP 3.1
  greeting[11] = 1;
  std::memcpy(&greeting[12], "NULL", 4);
  return greeting + Command("READY", Property("Socket-Type", "ROUTER"));
}

std::string ZmtpPing() { return Command("PING", std::string_view("\0\0", 2)); }

// Allocated and counted against the budget only as its bytes arrive.
struct ZmtpReader::Growing {
  char* data = nullptr;
  size_t size = 0;      // what the frame's size field said
  size_t filled = 0;
  size_t capacity = 0;  // allocated, and counted against the budget

  ~Growing() {
    if (data != nullptr) FreeFrame(data, reinterpret_cast<void*>(capacity));
  }
  // Room for `more` bytes (at most what the frame still lacks); false
  // when the budget or the allocator has none.
  bool Reserve(size_t more) {
    const size_t need = std::min(size, filled + more);
    if (need <= capacity) return true;
    const size_t next = std::min(size, std::max({need, capacity * 2, kFirstFrameBytes}));
    if (!ReserveMemory(next - capacity)) return false;
    char* grown = static_cast<char*>(std::realloc(data, next));
    if (grown == nullptr) {
      ReleaseMemory(next - capacity);
      return false;
    }
    data = grown;
    capacity = next;
    return true;
  }
};

ZmtpReader::ZmtpReader(const ZmtpLimits& limits, std::string peer)
    : limits_(limits), peer_(std::move(peer)), in_(kBufferBytes) {}
ZmtpReader::~ZmtpReader() = default;

ZmtpReader::Space ZmtpReader::NextSpace() {
  direct_ = false;
  if (state_ == State::kPayload && begin_ == end_ && left_ >= kDirectBytes) {
    if (frame_->Reserve(kBufferBytes)) {
      direct_ = true;
      return {frame_->data + frame_->filled, frame_->capacity - frame_->filled};
    }
    Drop();
  }
  if (begin_ > 0) {
    std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  return {in_.data() + end_, in_.size() - end_};
}

Status ZmtpReader::Take(size_t n, std::vector<Received>& messages, std::string& reply) {
  if (!direct_) {
    end_ += n;
    return Parse(messages, reply);
  }
  frame_->filled += n;
  left_ -= n;
  if (left_ == 0) EndFrame(messages);
  return Status::OK();
}

Status ZmtpReader::Parse(std::vector<Received>& messages, std::string& reply) {
  while (begin_ < end_) {
    const char* p = in_.data() + begin_;
    const size_t avail = end_ - begin_;
    switch (state_) {
      case State::kGreeting:
        TFG_RETURN_IF_ERROR(ReadGreeting());
        if (avail < kGreetingBytes) return Status::OK();
        begin_ += kGreetingBytes;
        state_ = State::kFlags;
        break;
      case State::kFlags:
        flags_ = static_cast<uint8_t>(p[0]);
        ++begin_;
        if ((flags_ & ~(kMore | kLong | kCommand)) != 0) return Broken("a frame with reserved flag bits set");
        if ((flags_ & kCommand) && (flags_ & kMore)) return Broken("a command with the MORE flag");
        if (!(flags_ & kCommand) && !ready_) return Broken("a message before the handshake's READY");
        left_ = (flags_ & kLong) ? 8 : 1;
        size_ = 0;
        state_ = State::kSize;
        break;
      case State::kSize: {
        const size_t k = std::min<uint64_t>(avail, left_);
        for (size_t i = 0; i < k; ++i) size_ = size_ << 8 | static_cast<uint8_t>(p[i]);
        begin_ += k;
        left_ -= k;
        if (left_ > 0) break;
        if (flags_ & kCommand) {
          if (size_ == 0 || size_ > limits_.max_command_bytes) {
            return Broken(fmt::format("a command of {} bytes (at most {})", size_, limits_.max_command_bytes));
          }
          command_.clear();
          left_ = size_;
          state_ = State::kCommand;
        } else {
          StartFrame(size_);
          if (left_ == 0) EndFrame(messages);
        }
        break;
      }
      case State::kCommand: {
        const size_t k = std::min<uint64_t>(avail, left_);
        command_.append(p, k);
        begin_ += k;
        left_ -= k;
        if (left_ == 0) {
          state_ = State::kFlags;
          TFG_RETURN_IF_ERROR(OnCommand(reply));
        }
        break;
      }
      case State::kPayload: {
        const size_t k = std::min<uint64_t>(avail, left_);
        if (!frame_->Reserve(k)) {
          Drop();
          break;
        }
        std::memcpy(frame_->data + frame_->filled, p, k);
        frame_->filled += k;
        begin_ += k;
        left_ -= k;
        if (left_ == 0) EndFrame(messages);
        break;
      }
      case State::kSkip: {
        const size_t k = std::min<uint64_t>(avail, left_);
        begin_ += k;
        left_ -= k;
        if (left_ == 0) EndFrame(messages);
        break;
      }
    }
  }
  return Status::OK();
}

// Checked as its bytes arrive, so that a peer that speaks anything else
// is told at once rather than after the handshake's time limit.
Status ZmtpReader::ReadGreeting() {
  const auto* g = reinterpret_cast<const uint8_t*>(in_.data() + begin_);
  const size_t avail = end_ - begin_;
  if (g[0] != 0xff || (avail > 9 && (g[9] & 1) == 0)) return Broken("not a ZMTP 3 greeting");
  if (avail > 10 && g[10] < 3) return Broken(fmt::format("ZMTP version {} (this process speaks 3)", g[10]));
  if (avail < kGreetingBytes) return Status::OK();
  const char* name = reinterpret_cast<const char*>(g) + 12;
  const std::string mechanism(name, strnlen(name, 20));
  if (mechanism != "NULL") {
    const bool printable = mechanism.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos;
    return InvalidArgument("asked for ZeroMQ security '{}', and this process uses none (--curve-keys on one side only?)",
                           printable ? mechanism : std::string("?"));
  }
  return Status::OK();
}

void ZmtpReader::StartFrame(uint64_t size) {
  ++frames_;
  bytes_ = size > std::numeric_limits<uint64_t>::max() - bytes_ ? std::numeric_limits<uint64_t>::max() : bytes_ + size;
  if (bytes_ > limits_.max_message_bytes || frames_ > limits_.max_frames) Drop();
  left_ = size;
  if (dropping_) {
    state_ = State::kSkip;
    return;
  }
  frame_ = std::make_unique<Growing>();
  frame_->size = size;
  state_ = State::kPayload;
}

// The message is dropped from here on: what it kept is freed, and the
// rest of its frames are read and discarded. Said when it happens, since
// a peer that never ends the message would otherwise never be logged.
void ZmtpReader::Drop() {
  if (!dropping_) {
    const bool too_large = bytes_ > limits_.max_message_bytes || frames_ > limits_.max_frames;
    const std::string why =
        too_large ? fmt::format("a message may have a head and at most {} attachments, of {} bytes in all",
                                limits_.max_frames - 1, limits_.max_message_bytes)
                  : fmt::format("its frame of {} bytes does not fit in the memory budget ({} of {} in use)",
                                frame_ == nullptr ? 0 : frame_->size, FormatByteSize(MemoryInUse()),
                                FormatByteSize(MemoryLimit()));
    LogRefusal(too_large ? "an oversized message" : "a message over the memory budget",
               fmt::format("dropped a message from {} at its frame {}, {} bytes so far ({}); the rest of it is read "
                           "and discarded",
                           peer_, frames_, bytes_, why));
  }
  dropping_ = true;
  message_ = Received();
  frame_.reset();
  state_ = State::kSkip;
}

void ZmtpReader::EndFrame(std::vector<Received>& messages) {
  state_ = State::kFlags;
  if (!dropping_) {
    const size_t size = frame_->size;
    char* data = std::exchange(frame_->data, nullptr);  // capacity == size: the budget counts `size`
    frame_.reset();
    void* counted = reinterpret_cast<void*>(size);
    if (frames_ == 1) {
      message_.head = Frame::Adopt(data, size, FreeFrame, counted);
    } else {
      std::shared_ptr<void> owner(data, [counted](void* p) { FreeFrame(p, counted); });
      message_.attachments.push_back(Attachment{data, size, data == nullptr ? nullptr : std::move(owner)});
    }
  }
  if (flags_ & kMore) return;
  if (!dropping_) messages.push_back(std::move(message_));
  message_ = Received();
  frames_ = 0;
  bytes_ = 0;
  dropping_ = false;
}

Status ZmtpReader::OnCommand(std::string& reply) {
  const size_t name_size = static_cast<uint8_t>(command_[0]);
  if (1 + name_size > command_.size()) return Broken("a command whose name runs past its end");
  const std::string_view name = std::string_view(command_).substr(1, name_size);
  const std::string_view body = std::string_view(command_).substr(1 + name_size);
  if (name == "READY") return OnReady(body);
  if (name == "ERROR") return Broken("the peer sent ERROR");
  if (!ready_) return Broken("a command before the handshake's READY");
  if (name == "PING") {
    // Its TTL (2 bytes), then a context of at most 16 bytes, sent back.
    if (body.size() < 2 || body.size() > 2 + 16) return Broken("a PING of a bad size");
    reply += Command("PONG", body.substr(2));
  }
  return Status::OK();  // PONG, and commands of later versions, need no answer
}

// The properties: name (length byte, name), value (4-byte length, value).
// Only Socket-Type matters: libzmq's ROUTER talks to DEALER, REQ and ROUTER.
Status ZmtpReader::OnReady(std::string_view properties) {
  if (ready_) return Broken("a second READY");
  std::string_view socket_type;
  size_t at = 0;
  while (at < properties.size()) {
    const size_t name_size = static_cast<uint8_t>(properties[at]);
    if (properties.size() - at < 1 + name_size + 4) return Broken("a READY property runs past its end");
    const std::string_view name = properties.substr(at + 1, name_size);
    const uint32_t value_size = BigEndian32(properties.data() + at + 1 + name_size);
    at += 1 + name_size + 4;
    if (properties.size() - at < value_size) return Broken("a READY property runs past its end");
    if (SameName(name, "Socket-Type")) socket_type = properties.substr(at, value_size);
    at += value_size;
  }
  if (socket_type != "DEALER" && socket_type != "REQ" && socket_type != "ROUTER") {
    return Broken("a READY from a socket that cannot talk to a ROUTER");
  }
  ready_ = true;
  return Status::OK();
}

}  // namespace tfg::net
