// The protobuf wire format, by hand: enough to read and write the few
// TensorFlow messages tfg exchanges as files (the tensor bundle's
// BundleHeaderProto and BundleEntryProto, tf.train.Example). Written out
// rather than generated so that the readers can be fuzzed on arbitrary
// bytes with every bound check in view, and so that an unknown field is
// skipped the way protobuf skips it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/core/status.h"

namespace tfg::proto_wire {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

// One field of a message: its number, wire type and payload (`value` for
// varints and fixed-width numbers, `bytes` for length-delimited fields).
struct Field {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;
  std::string_view bytes;
};

// Reads the fields of one message in order. Errors (DataLoss) say what
// is malformed and where, after the caller's `what` ("BundleEntryProto").
class Reader {
 public:
  Reader(std::string_view bytes, std::string_view what) : bytes_(bytes), what_(what) {}

  bool done() const { return pos_ >= bytes_.size(); }
  // The next field; call only while !done().
  Result<Field> Next();

 private:
  Status Malformed(std::string_view why) const;

  std::string_view bytes_;
  std::string_view what_;
  size_t pos_ = 0;
};

// A varint at the start of `in`, which is advanced past it; false when
// `in` ends inside it or it is longer than ten bytes.
bool GetVarint(std::string_view& in, uint64_t& value);

// The elements of a packed repeated field (or of one unpacked element):
// varints, or little-endian fixed-width values of `width` bytes. False
// when the bytes do not hold a whole number of elements.
bool ForEachVarint(std::string_view packed, const auto& fn) {
  while (!packed.empty()) {
    uint64_t v = 0;
    if (!GetVarint(packed, v)) return false;
    fn(v);
  }
  return true;
}

void PutVarint(std::string& out, uint64_t value);
void PutVarintField(std::string& out, uint32_t number, uint64_t value);
void PutFixed32Field(std::string& out, uint32_t number, uint32_t value);
void PutBytesField(std::string& out, uint32_t number, std::string_view bytes);

}  // namespace tfg::proto_wire
