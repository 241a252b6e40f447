// The archive types and field codecs shared by the two translation units
// that hold cereal (net/wire.cc: primitives, tensors, attrs;
// net/wire_messages.cc: message bodies). Private to net/: everything else
// uses net/protocol.h. Loads throw WireError, which DecodeMessage turns
// into a Status; no exception leaves those two files.
#pragma once

#include <cereal/archives/portable_binary.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "net/protocol.h"

namespace tfg::net::wire {

// The output archive, and the tensors whose elements go in frames of
// their own (EncodedMessage::attachments).
struct Out {
  explicit Out(std::ostream& stream) : ar(stream) {}
  cereal::PortableBinaryOutputArchive ar;
  std::vector<Tensor> attachments;
  template <typename... T>
  void operator()(T&&... values) {
    ar(std::forward<T>(values)...);
  }
};

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename... Args>
[[noreturn]] void Refuse(fmt::format_string<Args...> f, Args&&... args) {
  throw WireError(fmt::format(f, std::forward<Args>(args)...));
}

// The received bytes as a stream that knows how many are left.
class MemBuf : public std::streambuf {
 public:
  explicit MemBuf(std::string_view bytes) {
    char* p = const_cast<char*>(bytes.data());  // read only: the get area is never written
    setg(p, p, p + bytes.size());
  }
  size_t left() const { return static_cast<size_t>(egptr() - gptr()); }

 protected:
  // One copy per field, without std::streambuf's general loop.
  std::streamsize xsgetn(char* s, std::streamsize n) override {
    const auto got = std::min(n, static_cast<std::streamsize>(left()));
    std::memcpy(s, gptr(), static_cast<size_t>(got));
    gbump(static_cast<int>(got));
    return got;
  }
};

// An output stream into a std::string reserved up front, so a large
// tensor is copied once while encoding (an ostringstream regrows and
// copies its buffer again and again).
class StringSink : public std::streambuf {
 public:
  explicit StringSink(size_t reserve) { out_.reserve(reserve); }
  std::string Take() { return std::move(out_); }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.append(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) out_.push_back(static_cast<char>(c));
    return c;
  }

 private:
  std::string out_;
};

// cereal reads and writes through a stream's buffer only. Making a stream
// (its locale) costs more than coding a small message, so each thread
// keeps one of each, pointed at the buffer of the moment.
std::istream& ReusedInput(std::streambuf* buf);
std::ostream& ReusedOutput(std::streambuf* buf);

// The input archive with its byte budget, and the frames that came after
// the head.
struct In {
  In(MemBuf& b, std::vector<Attachment> a)
      : buf(b), stream(ReusedInput(&b)), ar(stream), attachments(std::move(a)) {}
  MemBuf& buf;
  std::istream& stream;
  cereal::PortableBinaryInputArchive ar;
  std::vector<Attachment> attachments;
  size_t next_attachment = 0;
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
  // A count of elements of at least `min_bytes` each that the bytes left can back.
  size_t Count(size_t min_bytes, const char* what) {
    const uint64_t n = Read<uint64_t>();
    if (n > buf.left() / std::max<size_t>(min_bytes, 1)) Refuse("{}: {} elements, more than the message holds", what, n);
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
