#include "interp/data/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <new>

#include "interp/data/byte_order.h"
#include "interp/data/npy_header.h"
#include "interp/data/npy_strings.h"

namespace tfg::data {
namespace {

// NumPy itself refuses headers over 10000 bytes unless told otherwise; a
// megabyte leaves room for any real shape while bounding what a corrupt
// length field can make us read.
constexpr uint64_t kMaxHeaderBytes = 1 << 20;

struct ElementType {
  char kind;  // 'f', 'i', 'u' or 'b'
  size_t size;
  bool big_endian;
  DType dtype;  // what the tensor holds
};

const char* UnsupportedKind(char kind) {
  switch (kind) {
    case 'O': return "Python objects";
    case 'V': return "raw records";
    case 'c': return "complex numbers";
    case 'M': case 'm': return "dates or times";
    default: return nullptr;
  }
}

DType TargetDType(char kind, size_t size) {
  switch (kind) {
    case 'f': return size == 2 ? DType::kF16 : size == 4 ? DType::kF32 : size == 8 ? DType::kF64 : DType::kInvalid;
    case 'i': return size == 8 ? DType::kI64 : size == 1 || size == 2 || size == 4 ? DType::kI32 : DType::kInvalid;
    case 'u': return size == 4 || size == 8 ? DType::kI64 : size == 1 || size == 2 ? DType::kI32 : DType::kInvalid;
    case 'b': return size == 1 ? DType::kBool : DType::kInvalid;
    default: return DType::kInvalid;
  }
}

Result<ElementType> ParseDescr(const std::string& descr, const std::string& file) {
  const std::string_view orders = "<>|=";
  if (descr.size() < 2 || orders.find(descr[0]) == std::string_view::npos) {
    return Error(Code::kDataLoss, "'{}' has a malformed header: '{}' is not a NumPy dtype", file, descr);
  }
  ElementType e{descr[1], 0, false, DType::kInvalid};
  if (const char* what = UnsupportedKind(e.kind)) {
    return Unimplemented("'{}' holds {} (dtype '{}'): not supported yet", file, what, descr);
  }
  std::string_view digits = std::string_view(descr).substr(2);
  if (digits.empty() || digits.size() > 2 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Error(Code::kDataLoss, "'{}' has a malformed header: '{}' is not a NumPy dtype", file, descr);
  }
  e.size = static_cast<size_t>(std::stoi(std::string(digits)));
  e.dtype = TargetDType(e.kind, e.size);
  if (e.dtype == DType::kInvalid) return Unimplemented("'{}' holds dtype '{}': not supported yet", file, descr);
  e.big_endian = descr[0] == '>' || (descr[0] == '=' && std::endian::native == std::endian::big);
  return e;
}

// Converts n elements of type Raw at `raw` to Out. `raw` may alias `out`
// when the sizes match: each element is read before it is written.
template <typename Raw, typename Out>
void DecodeAs(const unsigned char* raw, bool big, void* out, int64_t n) {
  Out* o = static_cast<Out*>(out);
  for (int64_t i = 0; i < n; ++i) {
    Raw v = LoadBytes<Raw>(raw + i * sizeof(Raw), big);
    if constexpr (std::is_same_v<Out, bool>) {
      o[i] = v != 0;
    } else {
      o[i] = static_cast<Out>(v);
    }
  }
}

Status CheckU64(const unsigned char* raw, bool big, int64_t n, const std::string& file) {
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = LoadBytes<uint64_t>(raw + i * 8, big);
    if (v > static_cast<uint64_t>(INT64_MAX)) {
      return Error(Code::kOutOfRange, "'{}': element {} is {}, which does not fit in i64", file, i, v);
    }
  }
  return Status::OK();
}

Status Decode(const unsigned char* raw, const ElementType& e, Tensor& t, const std::string& file) {
  const int64_t n = t.num_elements();
  void* out = t.raw_data();
  const bool big = e.big_endian;
  // Half floats are copied as their 16 bits.
  switch (e.kind) {
    case 'f':
      if (e.size == 2) DecodeAs<uint16_t, uint16_t>(raw, big, out, n);
      if (e.size == 4) DecodeAs<float, float>(raw, big, out, n);
      if (e.size == 8) DecodeAs<double, double>(raw, big, out, n);
      break;
    case 'i':
      if (e.size == 1) DecodeAs<int8_t, int32_t>(raw, big, out, n);
      if (e.size == 2) DecodeAs<int16_t, int32_t>(raw, big, out, n);
      if (e.size == 4) DecodeAs<int32_t, int32_t>(raw, big, out, n);
      if (e.size == 8) DecodeAs<int64_t, int64_t>(raw, big, out, n);
      break;
    case 'u':
      if (e.size == 1) DecodeAs<uint8_t, int32_t>(raw, big, out, n);
      if (e.size == 2) DecodeAs<uint16_t, int32_t>(raw, big, out, n);
      if (e.size == 4) DecodeAs<uint32_t, int64_t>(raw, big, out, n);
      if (e.size == 8) {
        TFG_RETURN_IF_ERROR(CheckU64(raw, big, n, file));
        DecodeAs<uint64_t, int64_t>(raw, big, out, n);
      }
      break;
    default: DecodeAs<uint8_t, bool>(raw, big, out, n); break;
  }
  return Status::OK();
}

// A Fortran-order (column-major) array of shape d is laid out as its
// transpose; this walks the row-major indices and gathers each element.
Result<Tensor> FromFortranOrder(const Tensor& f) {
  TFG_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(HostAllocator(), f.dtype(), f.shape()));
  const int r = f.rank();
  const size_t s = DTypeSize(f.dtype());
  std::vector<int64_t> stride(r), idx(r, 0);
  int64_t acc = 1;
  for (int k = 0; k < r; ++k) {
    stride[k] = acc;
    acc *= f.dim(k);
  }
  const char* in = static_cast<const char*>(f.raw_data());
  char* o = static_cast<char*>(out.raw_data());
  int64_t offset = 0;
  for (int64_t c = 0; c < f.num_elements(); ++c) {
    std::memcpy(o + c * s, in + offset * s, s);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < f.dim(k)) {
        offset += stride[k];
        break;
      }
      offset -= stride[k] * (f.dim(k) - 1);
      idx[k] = 0;
    }
  }
  return out;
}

Status Truncated(ByteSource& src, const std::string& what, uint64_t found) {
  return Error(Code::kDataLoss, "'{}' is truncated: {}, found {}{}", src.name(), what, found,
               src.truncated() ? " (the gzip stream ends early)" : "");
}

Result<NpyHeader> ReadHeader(ByteSource& src) {
  unsigned char pre[12];
  TFG_ASSIGN_OR_RETURN(size_t got, src.ReadFully(reinterpret_cast<char*>(pre), 8));
  if (got == 0) return Error(Code::kDataLoss, "'{}' is empty, expected a .npy file", src.name());
  if (got < kNpyMagic.size() || std::memcmp(pre, kNpyMagic.data(), kNpyMagic.size()) != 0) {
    return Error(Code::kDataLoss, "'{}' is not a .npy file: it does not start with \\x93NUMPY", src.name());
  }
  if (got < 8) return Truncated(src, "a .npy file starts with 8 bytes of magic and version", got);
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3) {
    return Unimplemented("'{}' is a .npy file of format {}.{}: not supported yet (1.0, 2.0 and 3.0 are)", src.name(),
                         major, minor);
  }
  const size_t len_size = major == 1 ? 2 : 4;
  TFG_ASSIGN_OR_RETURN(got, src.ReadFully(reinterpret_cast<char*>(pre + 8), len_size));
  if (got < len_size) return Truncated(src, fmt::format("the header length needs {} bytes", len_size), got);
  const uint64_t hlen = len_size == 2 ? LoadLittleEndian<uint16_t>(pre + 8) : LoadLittleEndian<uint32_t>(pre + 8);
  if (hlen > kMaxHeaderBytes) {
    return Error(Code::kDataLoss, "'{}' has an implausibly large .npy header ({} bytes)", src.name(), hlen);
  }
  std::string text(hlen, '\0');
  TFG_ASSIGN_OR_RETURN(got, src.ReadFully(text.data(), hlen));
  if (got < hlen) return Truncated(src, fmt::format("its header length says {} bytes", hlen), got);
  return ParseNpyHeader(text, src.name());
}

Result<std::string> DescrFor(DType dtype) {
  const bool big = std::endian::native == std::endian::big;
  switch (dtype) {
    case DType::kF16: return std::string(big ? ">f2" : "<f2");
    case DType::kF32: return std::string(big ? ">f4" : "<f4");
    case DType::kF64: return std::string(big ? ">f8" : "<f8");
    case DType::kI32: return std::string(big ? ">i4" : "<i4");
    case DType::kI64: return std::string(big ? ">i8" : "<i8");
    case DType::kBool: return std::string("|b1");
    default: return Unimplemented("cannot write a {} tensor as .npy: not supported yet", DTypeName(dtype));
  }
}

// The rest of a .npy file of strings: fixed-width elements, read whole
// (their count is bounded by the bytes there) and converted.
Result<Tensor> ReadStrings(ByteSource& src, const NpyHeader& h, const NpyStringType& type) {
  std::optional<uint64_t> bytes = DataBytes(h.shape, type.bytes());
  std::string what = fmt::format("shape {} of '{}'", TensorShape(h.shape).ToString(), h.descr);
  if (!bytes) return Error(Code::kDataLoss, "'{}' has an impossible {}: too many elements", src.name(), what);
  what = fmt::format("header promises {} bytes of data ({})", *bytes, what);
  if (*bytes > src.MaxRemaining()) return Truncated(src, what, src.MaxRemaining());
  std::string raw(*bytes, '\0');
  TFG_ASSIGN_OR_RETURN(size_t got, src.ReadFully(raw.data(), *bytes));
  if (got < *bytes) return Truncated(src, what, got);
  TFG_ASSIGN_OR_RETURN(bool at_end, src.AtEnd());
  if (!at_end) return Error(Code::kDataLoss, "'{}' has more data than its header describes ({})", src.name(), what);
  const auto* data = reinterpret_cast<const unsigned char*>(raw.data());
  if (h.fortran_order && h.shape.size() > 1) {
    std::vector<unsigned char> row_major = FortranToRowMajor(data, type.bytes(), h.shape);
    return DecodeNpyStrings(row_major.data(), type, h.shape, src.name());
  }
  return DecodeNpyStrings(data, type, h.shape, src.name());
}

}  // namespace

Result<Tensor> ReadNpy(ByteSource& src) {
  TFG_ASSIGN_OR_RETURN(NpyHeader h, ReadHeader(src));
  NpyStringType string_type;
  TFG_ASSIGN_OR_RETURN(bool is_string, ParseNpyStringDescr(h.descr, src.name(), string_type));
  if (is_string) return ReadStrings(src, h, string_type);
  TFG_ASSIGN_OR_RETURN(ElementType e, ParseDescr(h.descr, src.name()));
  std::optional<uint64_t> bytes = DataBytes(h.shape, e.size);
  std::string what = fmt::format("shape {} of '{}'", TensorShape(h.shape).ToString(), h.descr);
  if (!bytes) return Error(Code::kDataLoss, "'{}' has an impossible {}: too many elements", src.name(), what);
  what = fmt::format("header promises {} bytes of data ({})", *bytes, what);
  if (*bytes > src.MaxRemaining()) {
    if (src.exact_size()) return Truncated(src, what, src.MaxRemaining());
    return Error(Code::kDataLoss, "'{}' is truncated: {}, but the gzip stream cannot hold more than {}", src.name(),
                 what, src.MaxRemaining());
  }
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), e.dtype, TensorShape(h.shape)));
  // Elements as wide as the tensor's are read into it and converted in
  // place; narrower ones go through a buffer.
  std::unique_ptr<unsigned char[]> buffer;
  unsigned char* raw = static_cast<unsigned char*>(t.raw_data());
  if (e.size != DTypeSize(e.dtype)) {
    buffer.reset(new (std::nothrow) unsigned char[*bytes]);
    if (!buffer) return Error(Code::kResourceExhausted, "'{}': out of memory for {} bytes", src.name(), *bytes);
    raw = buffer.get();
  }
  TFG_ASSIGN_OR_RETURN(size_t got, src.ReadFully(reinterpret_cast<char*>(raw), *bytes));
  if (got < *bytes) return Truncated(src, what, got);
  TFG_ASSIGN_OR_RETURN(bool at_end, src.AtEnd());
  if (!at_end) return Error(Code::kDataLoss, "'{}' has more data than its header describes ({})", src.name(), what);
  const bool as_is = !e.big_endian && e.size == DTypeSize(e.dtype) && (e.kind == 'f' || e.kind == 'i');
  if (!as_is) TFG_RETURN_IF_ERROR(Decode(raw, e, t, src.name()));
  if (h.fortran_order && t.rank() > 1) return FromFortranOrder(t);
  return t;
}

Result<Tensor> ReadNpyFile(const std::string& path) {
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src, OpenFile(path));
  return ReadNpy(*src);
}

Result<Tensor> DecodeNpy(std::string_view bytes, const std::string& name) {
  return ReadNpy(*MemorySource(bytes, name));
}

Result<std::string> EncodeNpy(const Tensor& t) {
  NpyHeader h;
  if (t.dtype() == DType::kString) {
    EncodedNpyStrings strings = EncodeNpyStrings(t);
    h.descr = strings.descr;
    h.shape = t.shape().dims();
    return FormatNpyHeader(h) + strings.data;
  }
  TFG_ASSIGN_OR_RETURN(h.descr, DescrFor(t.dtype()));
  h.shape = t.shape().dims();
  std::string out = FormatNpyHeader(h);
  // Written in the host's order, which the descr names.
  if (t.bytes() > 0) out.append(static_cast<const char*>(t.raw_data()), t.bytes());
  return out;
}

Status WriteNpyFile(const std::string& path, const Tensor& t) {
  TFG_ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(t));
  return WriteFileAtomically(path, bytes);
}

}  // namespace tfg::data
