// The archive types and field codecs shared by the two translation units
// that hold cereal (net/wire.cc: primitives, tensors, attrs;
// net/wire_messages.cc: message bodies). Private to net/: everything else
// uses net/protocol.h. Loads throw WireError, which DecodeMessage turns
// into a Status; no exception leaves those two files.
#pragma once

#include <cereal/cereal.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "net/protocol.h"

namespace tfg::net::wire {

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void Refuse(fmt::format_string<Args...> f, Args&&... args) {
  throw WireError(fmt::format(f, std::forward<Args>(args)...));
}

// cereal archives that write straight to and from memory: a leading
// byte-order byte (1, little-endian, as cereal's portable binary archive
// starts), then each value, integers as varints (below). cereal's own
// archives go through an iostream, a virtual call per value: that cost
// more than the rest of coding a small tensor message.
static_assert(std::endian::native == std::endian::little, "the wire is little-endian, as the host must be");

// Each archive can be started again on other bytes: a thread keeps one of
// each, as making one (cereal's bookkeeping for pointers and versions)
// costs as much as coding a small message.
// A 64-bit integer as a varint: 7 bits a byte.
inline constexpr size_t kMaxVarintBytes = 10;

class OutputArchive : public cereal::OutputArchive<OutputArchive, cereal::AllowEmptyClassElision> {
 public:
  OutputArchive() : cereal::OutputArchive<OutputArchive, cereal::AllowEmptyClassElision>(this) {}
  // Writes into `buffer` from its start; grows it and never shrinks it, so
  // a buffer kept from message to message is allocated once.
  void Start(std::string& buffer) {
    buffer_ = &buffer;
    size_ = 0;
    const uint8_t little_endian = 1;
    saveBinary(&little_endian, 1);
  }
  void saveBinary(const void* data, size_t size) {
    if (size == 0) return;  // `data` may be null (an empty vector's or tensor's)
    if (size > buffer_->size() - size_) Grow(size);
    std::memcpy(buffer_->data() + size_, data, size);
    size_ += size;
  }
  // LEB128: seven bits a byte, low bits first, the top bit set on every
  // byte but the last.
  // Written in place: most are one byte, and a call to memcpy for it cost
  // more than the rest of saving it.
  void SaveVarint(uint64_t v) {
    if (buffer_->size() - size_ < kMaxVarintBytes) Grow(kMaxVarintBytes);
    char* p = buffer_->data() + size_;
    for (; v >= 0x80; v >>= 7) *p++ = static_cast<char>(v | 0x80);
    *p++ = static_cast<char>(v);
    size_ = static_cast<size_t>(p - buffer_->data());
  }
  // The bytes written so far: the first size() of the buffer.
  size_t size() const { return size_; }

 private:
  [[gnu::noinline]] void Grow(size_t more) {
    buffer_->resize(std::max({size_ + more, 2 * buffer_->size(), size_t{256}}));
  }

  std::string* buffer_ = nullptr;
  size_t size_ = 0;
};

class InputArchive : public cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision> {
 public:
  InputArchive() : cereal::InputArchive<InputArchive, cereal::AllowEmptyClassElision>(this) {}
  // Reads `bytes` from their start (the byte-order byte first).
  void Start(std::string_view bytes) {
    next_ = bytes.data();
    end_ = bytes.data() + bytes.size();
    uint8_t little_endian = 0;
    loadBinary(&little_endian, 1);
    if (little_endian != 1) Refuse("byte order {} (tfg peers write 1, little-endian)", little_endian);
  }
  // An empty load may come with a null pointer (the data of an empty
  // vector or tensor), which memcpy must not be given.
  void loadBinary(void* data, size_t size) {
    const char* from = Take(size);
    if (size != 0) std::memcpy(data, from, size);
  }
  uint64_t LoadVarint() {
    if (next_ != end_ && static_cast<uint8_t>(*next_) < 0x80) return static_cast<uint8_t>(*next_++);
    return LoadLongVarint();
  }
  // The next `size` bytes, where they lie; throws when fewer are left.
  const char* Take(size_t size) {
    if (size > left()) Refuse("the message stops {} byte(s) short", size - left());
    const char* p = next_;
    next_ += size;
    return p;
  }
  size_t left() const { return static_cast<size_t>(end_ - next_); }

 private:
  // A varint of more than one byte (or none left): at most ten bytes, the
  // tenth holding only the 64th bit.
  [[gnu::noinline]] uint64_t LoadLongVarint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto byte = static_cast<uint8_t>(*Take(1));
      if (shift == 63 && byte > 1) Refuse("an integer runs past 64 bits");
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
    }
  }

  const char* next_ = nullptr;
  const char* end_ = nullptr;
};

// Bytes and floating-point values go as they lie in memory; wider
// integers as varints, the signed ones zigzagged (0, -1, 1, -2 ... as 0, 1,
// 2, 3 ...), so that the counts, lengths, ids and dims that fill a small
// message take a byte or two each. A value that does not fit the integer
// read is refused. Random 64-bit values (hashes, session ids, seeds) would
// take ten bytes as varints: they go fixed-width, as Fixed.
template <typename T>
inline constexpr bool kIsVarint = std::is_integral_v<T> && sizeof(T) > 1;

template <typename T>
std::enable_if_t<std::is_arithmetic_v<T> && !kIsVarint<T>> CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const T& t) {
  ar.saveBinary(&t, sizeof(t));
}
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T> && !kIsVarint<T>> CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, T& t) {
  ar.loadBinary(&t, sizeof(t));
}
template <typename T>
std::enable_if_t<kIsVarint<T>> CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const T& t) {
  if constexpr (std::is_signed_v<T>) {
    const auto v = static_cast<uint64_t>(static_cast<int64_t>(t));
    ar.SaveVarint((v << 1) ^ (t < 0 ? ~uint64_t{0} : 0));
  } else {
    ar.SaveVarint(t);
  }
}
template <typename T>
std::enable_if_t<kIsVarint<T>> CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, T& t) {
  const uint64_t v = ar.LoadVarint();
  if constexpr (std::is_signed_v<T>) {
    const auto s = static_cast<int64_t>((v >> 1) ^ (0 - (v & 1)));
    if (s < std::numeric_limits<T>::min() || s > std::numeric_limits<T>::max()) {
      Refuse("{} does not fit in a {}-bit integer", s, 8 * sizeof(T));
    }
    t = static_cast<T>(s);
  } else {
    if (v > std::numeric_limits<T>::max()) Refuse("{} does not fit in a {}-bit integer", v, 8 * sizeof(T));
    t = static_cast<T>(v);
  }
}

// A value written as it lies in memory whatever its type.
template <typename T>
cereal::BinaryData<T*> Fixed(T& v) {
  return cereal::binary_data(&v, sizeof(v));
}
template <typename T>
void CEREAL_SAVE_FUNCTION_NAME(OutputArchive& ar, const cereal::BinaryData<T>& bd) {
  ar.saveBinary(bd.data, static_cast<size_t>(bd.size));
}
template <typename T>
void CEREAL_LOAD_FUNCTION_NAME(InputArchive& ar, cereal::BinaryData<T>& bd) {
  ar.loadBinary(bd.data, static_cast<size_t>(bd.size));
}

// The output archive, and where the tensors whose elements go in frames
// of their own are appended (the caller's EncodedMessage::attachments).
struct Out {
  void Start(std::string& buffer, std::vector<Tensor>& to_attach) {
    ar.Start(buffer);
    attachments = &to_attach;
  }
  OutputArchive ar;
  std::vector<Tensor>* attachments = nullptr;
  template <typename... T>
  void operator()(T&&... values) {
    ar(std::forward<T>(values)...);
  }
};

// The input archive over a message's head, and the frames that came after
// it.
struct In {
  void Start(std::string_view head, std::vector<Attachment> a) {
    attachments = std::move(a);
    next_attachment = 0;
    ar.Start(head);
  }
  // Lets go of the frames (their buffers) once the message is decoded.
  void Finish() { attachments.clear(); }
  InputArchive ar;
  std::vector<Attachment> attachments;
  size_t next_attachment = 0;
  size_t left() const { return ar.left(); }
  // The next attachment, which must hold exactly `bytes`.
  Attachment& TakeAttachment(size_t bytes) {
    if (next_attachment == attachments.size()) Refuse("a tensor's frame is missing");
    Attachment& a = attachments[next_attachment++];
    if (a.size != bytes) Refuse("a tensor of {} bytes arrived in a frame of {}", bytes, a.size);
    return a;
  }
  template <typename T>
  T Read() {
    T v{};
    ar(v);
    return v;
  }
  template <typename T>
  T ReadFixed() {
    T v{};
    ar(Fixed(v));
    return v;
  }
  // A count of elements of at least `min_bytes` each that the bytes left can back.
  size_t Count(size_t min_bytes, const char* what) {
    const uint64_t n = Read<uint64_t>();
    if (n > left() / std::max<size_t>(min_bytes, 1)) Refuse("{}: {} elements, more than the message holds", what, n);
    return static_cast<size_t>(n);
  }
};

void Save(Out& ar, const std::string& s);
std::string LoadString(In& in, const char* what);
int32_t LoadInt32(In& in, int32_t lo, int32_t hi, const char* what);
bool LoadBool(In& in, const char* what);
void SaveBool(Out& ar, bool b);
DType LoadDType(In& in);
void Save(Out& ar, const PartialShape& s);
PartialShape LoadPartialShape(In& in);
void SaveTensor(Out& ar, const Tensor& t);
Tensor LoadTensor(In& in);
// An f32 tensor as the upper 16 bits of each element, and back (low bits 0).
void SaveTruncatedF32(Out& ar, const Tensor& t);
Tensor LoadTruncatedF32(In& in);
void SaveTensors(Out& ar, const std::vector<Tensor>& ts);
std::vector<Tensor> LoadTensors(In& in);
void SaveStrings(Out& ar, const std::vector<std::string>& v);
std::vector<std::string> LoadStrings(In& in, const char* what);
void SaveAttrs(Out& ar, const AttrMap& attrs);
AttrMap LoadAttrs(In& in);

}  // namespace tfg::net::wire
