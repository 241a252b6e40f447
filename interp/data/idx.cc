#include "interp/data/idx.h"

#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "interp/data/byte_order.h"

namespace tfg::data {
namespace {

struct IdxType {
  uint8_t code;
  const char* name;
  size_t size;
  DType dtype;
};

constexpr IdxType kIdxTypes[] = {
    {0x08, "u8", 1, DType::kI32},  {0x09, "i8", 1, DType::kI32},  {0x0B, "i16", 2, DType::kI32},
    {0x0C, "i32", 4, DType::kI32}, {0x0D, "f32", 4, DType::kF32}, {0x0E, "f64", 8, DType::kF64},
};

struct IdxHeader {
  const IdxType* type = nullptr;
  std::vector<int64_t> dims;
  uint64_t data_bytes = 0;
};

std::string DescribeHeader(const IdxHeader& h) {
  return fmt::format("shape {} of {}", TensorShape(h.dims).ToString(), h.type->name);
}

Result<IdxHeader> ReadHeader(ByteSource& src) {
  const std::string& name = src.name();
  unsigned char magic[4];
  TFG_ASSIGN_OR_RETURN(size_t got, src.ReadFully(reinterpret_cast<char*>(magic), 4));
  if (got == 0) return Error(Code::kDataLoss, "'{}' is empty, expected an IDX file", name);
  if (got < 4) return Error(Code::kDataLoss, "'{}' is truncated: an IDX header needs at least 4 bytes, found {}", name, got);
  if (magic[0] != 0 || magic[1] != 0) {
    return Error(Code::kDataLoss,
                 "'{}' is not an IDX file: it starts with {:02x} {:02x} {:02x} {:02x}, expected 00 00, a type byte "
                 "and the number of dimensions",
                 name, magic[0], magic[1], magic[2], magic[3]);
  }
  IdxHeader h;
  for (const IdxType& t : kIdxTypes) {
    if (t.code == magic[2]) h.type = &t;
  }
  if (h.type == nullptr) {
    return Error(Code::kDataLoss,
                 "'{}' has an unknown IDX element type 0x{:02X} (expected 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, "
                 "0x0D f32 or 0x0E f64)",
                 name, magic[2]);
  }
  const size_t rank = magic[3];
  std::vector<unsigned char> raw(4 * rank);
  TFG_ASSIGN_OR_RETURN(got, src.ReadFully(reinterpret_cast<char*>(raw.data()), raw.size()));
  if (got < raw.size()) {
    return Error(Code::kDataLoss, "'{}' is truncated: its IDX header declares {} dimensions ({} bytes), found {} bytes",
                 name, rank, raw.size(), got);
  }
  for (size_t i = 0; i < rank; ++i) h.dims.push_back(LoadBigEndian<uint32_t>(raw.data() + 4 * i));
  std::optional<uint64_t> bytes = DataBytes(h.dims, h.type->size);
  if (!bytes) {
    return Error(Code::kDataLoss, "'{}' has an impossible IDX shape {}: too many elements", name,
                 TensorShape(h.dims).ToString());
  }
  h.data_bytes = *bytes;
  return h;
}

// Big-endian elements of `type` at `raw` into `out` (which may be the same
// memory when the sizes match: each element is read before it is written).
template <typename Out>
void Decode(const unsigned char* raw, const IdxType& type, Out* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* p = raw + i * type.size;
    switch (type.code) {
      case 0x08: out[i] = static_cast<Out>(p[0]); break;
      case 0x09: out[i] = static_cast<Out>(static_cast<int8_t>(p[0])); break;
      case 0x0B: out[i] = static_cast<Out>(LoadBigEndian<int16_t>(p)); break;
      case 0x0C: out[i] = static_cast<Out>(LoadBigEndian<int32_t>(p)); break;
      case 0x0D: out[i] = static_cast<Out>(LoadBigEndian<float>(p)); break;
      case 0x0E: out[i] = static_cast<Out>(LoadBigEndian<double>(p)); break;
    }
  }
}

// `found` bytes of data where the header promised more; `bound` when the
// source can only say it holds at most that many (a gzip stream not yet
// inflated).
Status Truncated(ByteSource& src, const IdxHeader& h, uint64_t found, bool bound) {
  std::string what = fmt::format("header promises {} bytes of data ({})", h.data_bytes, DescribeHeader(h));
  if (bound) {
    return Error(Code::kDataLoss, "'{}' is truncated: {}, but the gzip stream cannot hold more than {}", src.name(),
                 what, found);
  }
  return Error(Code::kDataLoss, "'{}' is truncated: {}, found {}{}", src.name(), what, found,
               src.truncated() ? " (the gzip stream ends early)" : "");
}

}  // namespace

Result<Tensor> ReadIdx(ByteSource& src) {
  TFG_ASSIGN_OR_RETURN(IdxHeader h, ReadHeader(src));
  if (h.data_bytes > src.MaxRemaining()) return Truncated(src, h, src.MaxRemaining(), !src.exact_size());
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), h.type->dtype, TensorShape(h.dims)));
  // Elements as wide as the tensor's are read straight into it and swapped
  // in place; narrower ones go through a buffer.
  std::unique_ptr<unsigned char[]> buffer;
  unsigned char* raw = static_cast<unsigned char*>(t.raw_data());
  if (h.type->size != DTypeSize(t.dtype())) {
    buffer.reset(new (std::nothrow) unsigned char[h.data_bytes]);
    if (!buffer) return Error(Code::kResourceExhausted, "'{}': out of memory for {} bytes", src.name(), h.data_bytes);
    raw = buffer.get();
  }
  TFG_ASSIGN_OR_RETURN(size_t got, src.ReadFully(reinterpret_cast<char*>(raw), h.data_bytes));
  if (got < h.data_bytes) return Truncated(src, h, got, false);
  TFG_ASSIGN_OR_RETURN(bool at_end, src.AtEnd());
  if (!at_end) {
    return Error(Code::kDataLoss, "'{}' has more data than its header promises ({} bytes for {})", src.name(),
                 h.data_bytes, DescribeHeader(h));
  }
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kI32: Decode(raw, *h.type, t.data<int32_t>(), n); break;
    case DType::kF32: Decode(raw, *h.type, t.data<float>(), n); break;
    default: Decode(raw, *h.type, t.data<double>(), n); break;
  }
  return t;
}

Result<Tensor> ReadIdxFile(const std::string& path) {
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src, OpenFile(path));
  return ReadIdx(*src);
}

Result<Tensor> DecodeIdx(std::string_view bytes, const std::string& name) {
  return ReadIdx(*MemorySource(bytes, name));
}

}  // namespace tfg::data
