#include "ops/io/checkpoint_format.h"

#include <bit>
#include <cstring>
#include <set>

#include "ops/io/crc32c.h"

namespace tfg::checkpoint {
namespace {

// Numbers are stored little-endian; element data is copied as it is in
// memory, which is only right on a little-endian host.
static_assert(std::endian::native == std::endian::little, "the checkpoint codec assumes a little-endian host");

// The dtype codes of the file: fixed here, independent of DType's order.
struct DTypeCode {
  DType dtype;
  uint8_t code;
};
constexpr DTypeCode kDTypeCodes[] = {{DType::kF16, 1}, {DType::kF32, 2}, {DType::kF64, 3}, {DType::kI32, 4},
                                     {DType::kI64, 5}, {DType::kBool, 6}, {DType::kString, 7}};

uint8_t CodeOf(DType d) {
  for (const DTypeCode& c : kDTypeCodes) {
    if (c.dtype == d) return c.code;
  }
  return 0;
}

DType DTypeOfCode(uint8_t code) {
  for (const DTypeCode& c : kDTypeCodes) {
    if (c.code == code) return c.dtype;
  }
  return DType::kInvalid;
}

template <typename T>
void Put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void PutMaskedCrc(std::string& out, size_t from) {
  Put<uint32_t>(out, MaskCrc(Crc32c(out.data() + from, out.size() - from)));
}

void PutData(std::string& out, const Tensor& t) {
  const int64_t n = t.num_elements();
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      const std::string& s = t.data<std::string>()[i];
      Put<uint64_t>(out, s.size());
      out += s;
    }
  } else if (t.dtype() == DType::kBool) {
    for (int64_t i = 0; i < n; ++i) out.push_back(t.data<bool>()[i] ? 1 : 0);
  } else if (n > 0) {
    out.append(static_cast<const char*>(t.raw_data()), t.bytes());
  }
}

// Appends one record: length, body, masked CRC of length and body.
void PutRecord(std::string& out, const Entry& e) {
  std::string body;
  Put<uint32_t>(body, static_cast<uint32_t>(e.name.size()));
  body += e.name;
  body.push_back(static_cast<char>(CodeOf(e.value.dtype())));
  Put<uint32_t>(body, static_cast<uint32_t>(e.value.rank()));
  for (int64_t d : e.value.shape().dims()) Put<int64_t>(body, d);
  std::string data;
  PutData(data, e.value);
  Put<uint64_t>(body, data.size());
  body += data;
  const size_t start = out.size();
  Put<uint64_t>(out, body.size());
  out += body;
  PutMaskedCrc(out, start);
}

Status CheckEntry(const Entry& e, std::set<std::string>& seen) {
  if (e.name.empty() || e.name.size() > kMaxNameBytes) {
    return InvalidArgument("checkpoint tensor names must have 1 to {} bytes, got {}", kMaxNameBytes, e.name.size());
  }
  if (!seen.insert(e.name).second) return InvalidArgument("two tensors are both named '{}'", e.name);
  if (!e.value.IsInitialized() || CodeOf(e.value.dtype()) == 0) {
    return InvalidArgument("tensor '{}' has no value to save", e.name);
  }
  if (e.value.rank() > static_cast<int>(kMaxRank)) {
    return InvalidArgument("tensor '{}' has rank {}; checkpoints hold rank {} at most", e.name, e.value.rank(),
                           kMaxRank);
  }
  return Status::OK();
}

// Reads from a bounded range of the input; every read checks that the
// bytes are there first.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }
  template <typename T>
  bool Get(T& v) {
    if (left() < sizeof(T)) return false;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool Take(size_t n, std::string_view& out) {
    if (left() < n) return false;
    out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

Status Corrupt(const std::string& what) { return Status(Code::kDataLoss, what); }

Result<TensorShape> ReadShape(Reader& r, const std::string& where) {
  uint32_t rank = 0;
  if (!r.Get(rank)) return Corrupt(where + ": the record ends inside the shape");
  if (rank > kMaxRank) return Corrupt(fmt::format("{}: rank {} is over the limit of {}", where, rank, kMaxRank));
  std::vector<int64_t> dims(rank);
  for (int64_t& d : dims) {
    if (!r.Get(d)) return Corrupt(where + ": the record ends inside the shape");
    if (d < 0) return Corrupt(fmt::format("{}: negative dimension {}", where, d));
  }
  return TensorShape(std::move(dims));
}

Status ReadStrings(std::string_view data, Tensor& t, const std::string& where) {
  Reader r(data);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    uint64_t len = 0;
    std::string_view s;
    if (!r.Get(len) || !r.Take(len, s)) return Corrupt(where + ": a string runs past the tensor's data");
    t.data<std::string>()[i].assign(s);
  }
  if (r.left() != 0) return Corrupt(fmt::format("{}: {} bytes left over after the strings", where, r.left()));
  return Status::OK();
}

Status ReadBools(std::string_view data, Tensor& t, const std::string& where) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const auto b = static_cast<unsigned char>(data[i]);
    if (b > 1) return Corrupt(fmt::format("{}: bool element {} holds byte {}", where, i, b));
    t.data<bool>()[i] = b == 1;
  }
  return Status::OK();
}

Result<Tensor> ReadValue(DType dtype, const TensorShape& shape, std::string_view data, const std::string& where) {
  const bool is_string = dtype == DType::kString;
  const size_t elem = is_string ? sizeof(uint64_t) : (dtype == DType::kBool ? 1 : DTypeSize(dtype));
  TFG_ASSIGN_OR_RETURN(int64_t n, CheckedElementCount(shape, data.size(), elem, where));
  if (!is_string && static_cast<uint64_t>(n) * elem != data.size()) {
    return Corrupt(fmt::format("{}: {} {} elements need {} bytes, the record has {}", where, n, DTypeName(dtype),
                               static_cast<uint64_t>(n) * elem, data.size()));
  }
  auto t = Tensor::Allocate(HostAllocator(), dtype, shape);
  if (!t.ok()) return Status(t.status()).Prepend(where + ": ");
  if (is_string) {
    TFG_RETURN_IF_ERROR(ReadStrings(data, *t, where));
  } else if (dtype == DType::kBool) {
    TFG_RETURN_IF_ERROR(ReadBools(data, *t, where));
  } else if (n > 0) {
    std::memcpy(t->raw_data(), data.data(), data.size());
  }
  return std::move(*t);
}

// The body of record `index` (its length and checksum already verified).
Result<Entry> ReadBody(std::string_view body, size_t index) {
  Reader r(body);
  std::string where = fmt::format("record {}", index);
  uint32_t name_len = 0;
  std::string_view name;
  if (!r.Get(name_len)) return Corrupt(where + ": the record ends inside the name");
  if (name_len == 0 || name_len > kMaxNameBytes) {
    return Corrupt(fmt::format("{}: name length {} is not in 1..{}", where, name_len, kMaxNameBytes));
  }
  if (!r.Take(name_len, name)) return Corrupt(where + ": the record ends inside the name");
  where = fmt::format("record {} ('{}')", index, name);
  uint8_t code = 0;
  if (!r.Get(code)) return Corrupt(where + ": the record ends before the dtype");
  const DType dtype = DTypeOfCode(code);
  if (dtype == DType::kInvalid) return Corrupt(fmt::format("{}: unknown dtype code {}", where, code));
  TFG_ASSIGN_OR_RETURN(TensorShape shape, ReadShape(r, where));
  uint64_t data_len = 0;
  std::string_view data;
  if (!r.Get(data_len)) return Corrupt(where + ": the record ends before the data length");
  if (data_len != r.left()) {
    return Corrupt(fmt::format("{}: {} data bytes recorded, the record has {}", where, data_len, r.left()));
  }
  (void)r.Take(data_len, data);
  TFG_ASSIGN_OR_RETURN(Tensor value, ReadValue(dtype, shape, data, where));
  return Entry{std::string(name), std::move(value)};
}

// One record at the reader's position in `records` (the bytes between
// header and footer).
Result<Entry> ReadRecord(std::string_view records, Reader& r, size_t index) {
  const size_t start = r.pos();
  uint64_t body_len = 0;
  std::string_view body;
  uint32_t stored = 0;
  if (!r.Get(body_len) || body_len > r.left() || r.left() - body_len < sizeof(uint32_t)) {
    return Corrupt(fmt::format("record {} (at byte {}) runs past the end of the records; the file is truncated or "
                               "the record length is corrupt",
                               index, start + kHeaderBytes));
  }
  (void)r.Take(body_len, body);
  (void)r.Get(stored);
  std::string_view covered = records.substr(start, sizeof(uint64_t) + body_len);
  if (UnmaskCrc(stored) != Crc32c(covered.data(), covered.size())) {
    return Corrupt(fmt::format("record {} (at byte {}) fails its checksum", index, start + kHeaderBytes));
  }
  return ReadBody(body, index);
}

Status CheckHeader(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return Corrupt("not a tfg checkpoint (it does not start with the checkpoint magic)");
  }
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + sizeof(kMagic), sizeof(version));
  if (version != kVersion) {
    return Status(Code::kUnimplemented,
                  fmt::format("checkpoint format version {} is not supported (this tfg reads version {})", version,
                              kVersion));
  }
  if (bytes.size() < kHeaderBytes + kFooterBytes) {
    return Corrupt(fmt::format("truncated: {} bytes, shorter than header and footer", bytes.size()));
  }
  return Status::OK();
}

// A file cut short, or with bytes appended, no longer ends with the marker.
Status CheckEndMarker(std::string_view bytes) {
  if (std::memcmp(bytes.data() + bytes.size() - sizeof(kEndMagic), kEndMagic, sizeof(kEndMagic)) != 0) {
    return Corrupt("truncated or followed by extra bytes: it does not end with the end marker");
  }
  return Status::OK();
}

// The footer's record count, once its checksum over the whole file holds.
Result<uint64_t> ReadFooter(std::string_view bytes) {
  const size_t at = bytes.size() - kFooterBytes;
  uint64_t count = 0;
  uint32_t stored = 0;
  std::memcpy(&count, bytes.data() + at, sizeof(count));
  std::memcpy(&stored, bytes.data() + at + sizeof(count), sizeof(stored));
  if (UnmaskCrc(stored) != Crc32c(bytes.data(), at + sizeof(count))) {
    return Corrupt("the file checksum in the footer does not match the contents");
  }
  return count;
}

}  // namespace

// The element count, or an error when it cannot fit in `data_len` bytes
// (each element needs at least `min_bytes`): checked before allocating.
// Dimensions beside a 0 must not overflow either, since TensorShape
// multiplies them all.
Result<int64_t> CheckedElementCount(const TensorShape& shape, uint64_t data_len, size_t min_bytes,
                                    const std::string& where) {
  constexpr uint64_t kMaxElements = uint64_t{1} << 62;
  uint64_t n = 1;
  bool empty = false;
  for (int64_t d : shape.dims()) {
    if (d == 0) {
      empty = true;
    } else if (static_cast<uint64_t>(d) > kMaxElements / n) {
      return Status(Code::kDataLoss, fmt::format("{}: shape {} is too large", where, shape.ToString()));
    } else {
      n *= static_cast<uint64_t>(d);
    }
  }
  if (empty) return int64_t{0};
  if (n > data_len / min_bytes) {
    return Status(Code::kDataLoss, fmt::format("{}: shape {} needs more than the {} data bytes recorded", where,
                                               shape.ToString(), data_len));
  }
  return static_cast<int64_t>(n);
}

Result<std::string> Encode(const std::vector<Entry>& entries) {
  std::set<std::string> seen;
  for (const Entry& e : entries) TFG_RETURN_IF_ERROR(CheckEntry(e, seen));
  std::string out(kMagic, sizeof(kMagic));
  Put<uint32_t>(out, kVersion);
  for (const Entry& e : entries) PutRecord(out, e);
  Put<uint64_t>(out, entries.size());
  Put<uint32_t>(out, MaskCrc(Crc32c(out.data(), out.size())));
  out.append(kEndMagic, sizeof(kEndMagic));
  return out;
}

Result<std::vector<Entry>> Decode(std::string_view bytes) {
  TFG_RETURN_IF_ERROR(CheckHeader(bytes));
  TFG_RETURN_IF_ERROR(CheckEndMarker(bytes));
  std::string_view records = bytes.substr(kHeaderBytes, bytes.size() - kHeaderBytes - kFooterBytes);
  Reader r(records);
  std::vector<Entry> entries;
  std::set<std::string> names;
  while (r.left() > 0) {
    TFG_ASSIGN_OR_RETURN(Entry e, ReadRecord(records, r, entries.size()));
    if (!names.insert(e.name).second) return Corrupt(fmt::format("the name '{}' appears twice", e.name));
    entries.push_back(std::move(e));
  }
  TFG_ASSIGN_OR_RETURN(uint64_t count, ReadFooter(bytes));
  if (count != entries.size()) {
    return Corrupt(fmt::format("the footer counts {} tensors but the file holds {}", count, entries.size()));
  }
  return entries;
}

}  // namespace tfg::checkpoint
