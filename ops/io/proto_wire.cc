#include "ops/io/proto_wire.h"

#include <cstring>

namespace tfg::proto_wire {

bool GetVarint(std::string_view& in, uint64_t& value) {
  value = 0;
  for (size_t i = 0; i < in.size() && i < 10; ++i) {
    const auto byte = static_cast<uint8_t>(in[i]);
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      in.remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

Status Reader::Malformed(std::string_view why) const {
  return Status(Code::kDataLoss, fmt::format("malformed {} at byte {}: {}", what_, pos_, why));
}

Result<Field> Reader::Next() {
  std::string_view in = bytes_.substr(pos_);
  uint64_t tag = 0;
  if (!GetVarint(in, tag)) return Malformed("a field tag runs past the end");
  Field f;
  const uint64_t number = tag >> 3;
  if (number == 0 || number > 0x1fffffff) return Malformed(fmt::format("field number {} is invalid", number));
  f.number = static_cast<uint32_t>(number);
  switch (tag & 7) {
    case 0:
      f.type = WireType::kVarint;
      if (!GetVarint(in, f.value)) return Malformed("a varint runs past the end");
      break;
    case 1:
    case 5: {
      const size_t width = (tag & 7) == 1 ? 8 : 4;
      f.type = width == 8 ? WireType::kFixed64 : WireType::kFixed32;
      if (in.size() < width) return Malformed("a fixed-width number runs past the end");
      std::memcpy(&f.value, in.data(), width);  // little-endian host (static_assert in the codecs)
      in.remove_prefix(width);
      break;
    }
    case 2: {
      f.type = WireType::kBytes;
      uint64_t len = 0;
      if (!GetVarint(in, len) || len > in.size()) return Malformed("a length-delimited field runs past the end");
      f.bytes = in.substr(0, len);
      in.remove_prefix(len);
      break;
    }
    default:
      return Malformed(fmt::format("wire type {} is not supported", tag & 7));
  }
  pos_ = bytes_.size() - in.size();
  return f;
}

void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void PutVarintField(std::string& out, uint32_t number, uint64_t value) {
  PutVarint(out, (uint64_t{number} << 3) | 0);
  PutVarint(out, value);
}

void PutFixed32Field(std::string& out, uint32_t number, uint32_t value) {
  PutVarint(out, (uint64_t{number} << 3) | 5);
  char b[4];
  std::memcpy(b, &value, 4);
  out.append(b, 4);
}

void PutBytesField(std::string& out, uint32_t number, std::string_view bytes) {
  PutVarint(out, (uint64_t{number} << 3) | 2);
  PutVarint(out, bytes.size());
  out.append(bytes);
}

}  // namespace tfg::proto_wire
