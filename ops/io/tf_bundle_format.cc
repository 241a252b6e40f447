#include "ops/io/tf_bundle_format.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>

#include "ops/io/checkpoint_format.h"
#include "ops/io/crc32c.h"
#include "ops/io/proto_wire.h"
#include "ops/io/sstable.h"

namespace tfg::tf_bundle {
namespace {

static_assert(std::endian::native == std::endian::little, "the bundle codec assumes a little-endian host");

using proto_wire::Field;
using proto_wire::WireType;

// TensorFlow's DataType numbers (tensorflow/core/framework/types.proto).
struct TfDType {
  DType dtype;
  int code;
};
constexpr TfDType kTfDTypes[] = {{DType::kF32, 1},  {DType::kF64, 2},  {DType::kI32, 3},  {DType::kString, 7},
                                 {DType::kI64, 9},  {DType::kBool, 10}, {DType::kF16, 19}};

// The bundle's own version (tensorflow/core/util/tensor_bundle: kTensorBundleVersion).
constexpr int kBundleVersion = 1;

Status Corrupt(const std::string& what) { return Status(Code::kDataLoss, what); }

std::string Quoted(std::string_view name) {
  std::string out = "'";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  return out + "'";
}

Status ParseVersion(std::string_view bytes) {
  proto_wire::Reader r(bytes, "VersionDef");
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    if (f.number == 2 && f.type == WireType::kVarint && static_cast<int64_t>(f.value) > kBundleVersion) {
      return Status(Code::kUnimplemented,
                    fmt::format("the checkpoint needs a reader of tensor bundle version {} or newer; tfg reads "
                                "version {}",
                                static_cast<int64_t>(f.value), kBundleVersion));
    }
  }
  return Status::OK();
}

// The header (the entry under ""): shard count, byte order, version.
Result<int32_t> ParseHeader(std::string_view bytes) {
  proto_wire::Reader r(bytes, "BundleHeaderProto");
  int64_t shards = 1;  // proto3 default 0 is never written by TensorFlow; read as one
  bool set = false;
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    if (f.number == 1 && f.type == WireType::kVarint) {
      shards = static_cast<int64_t>(f.value);
      set = true;
    } else if (f.number == 2 && f.type == WireType::kVarint && f.value != 0) {
      return Status(Code::kUnimplemented, "the checkpoint was written big-endian; only little-endian bundles are "
                                          "supported");
    } else if (f.number == 3 && f.type == WireType::kBytes) {
      TFG_RETURN_IF_ERROR(ParseVersion(f.bytes));
    }
  }
  if (!set || shards < 1 || shards > kMaxShards) {
    return Corrupt(fmt::format("the header's shard count {} is not in 1..{}", shards, kMaxShards));
  }
  return static_cast<int32_t>(shards);
}

Result<TensorShape> ParseShape(std::string_view bytes, const std::string& where) {
  proto_wire::Reader r(bytes, "TensorShapeProto");
  std::vector<int64_t> dims;
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    if (f.number == 3 && f.type == WireType::kVarint && f.value != 0) {
      return Corrupt(where + ": the shape's rank is unknown");
    }
    if (f.number != 2 || f.type != WireType::kBytes) continue;
    if (dims.size() == kMaxRank) return Corrupt(fmt::format("{}: rank over the limit of {}", where, kMaxRank));
    int64_t size = 0;
    proto_wire::Reader dim(f.bytes, "TensorShapeProto.Dim");
    while (!dim.done()) {
      TFG_ASSIGN_OR_RETURN(Field d, dim.Next());
      if (d.number == 1 && d.type == WireType::kVarint) size = static_cast<int64_t>(d.value);
    }
    if (size < 0) return Corrupt(fmt::format("{}: dimension {} is {}", where, dims.size(), size));
    dims.push_back(size);
  }
  return TensorShape(std::move(dims));
}

Result<DType> DTypeOfCode(uint64_t code, const std::string& where) {
  for (const TfDType& t : kTfDTypes) {
    if (static_cast<uint64_t>(t.code) == code) return t.dtype;
  }
  return Status(Code::kUnimplemented,
                fmt::format("{} has TensorFlow dtype number {}, which tfg does not have (it reads float, double, "
                            "int32, int64, bool, string and half)",
                            where, code));
}

int CodeOf(DType d) {
  for (const TfDType& t : kTfDTypes) {
    if (t.dtype == d) return t.code;
  }
  return 0;
}

// A TensorSliceProto: repeated Extent {start = 1, length = 2 (absent: all)}.
Result<TensorSlice> ParseSlice(std::string_view bytes, const std::string& where) {
  TensorSlice slice;
  proto_wire::Reader r(bytes, "TensorSliceProto of " + where);
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    if (f.number != 1 || f.type != WireType::kBytes) continue;
    if (slice.size() == kMaxRank) return Corrupt(fmt::format("{}: a slice of rank over {}", where, kMaxRank));
    SliceExtent x;
    proto_wire::Reader er(f.bytes, "TensorSliceProto.Extent of " + where);
    while (!er.done()) {
      TFG_ASSIGN_OR_RETURN(Field e, er.Next());
      if (e.number == 1 && e.type == WireType::kVarint) x.start = static_cast<int64_t>(e.value);
      if (e.number == 2 && e.type == WireType::kVarint) x.length = static_cast<int64_t>(e.value);
    }
    if (x.start < 0 || x.length < -1) return Corrupt(where + ": a slice with a negative start or length");
    slice.push_back(x);
  }
  return slice;
}

Result<IndexEntry> ParseEntry(const std::string& name, std::string_view bytes, int32_t num_shards) {
  IndexEntry e;
  e.name = name;
  const std::string where = "tensor " + Quoted(name);
  proto_wire::Reader r(bytes, "BundleEntryProto of " + Quoted(name));
  uint64_t dtype_code = 0;
  int64_t shard = 0;
  while (!r.done()) {
    TFG_ASSIGN_OR_RETURN(Field f, r.Next());
    const bool varint = f.type == WireType::kVarint;
    if (f.number == 1 && varint) dtype_code = f.value;
    if (f.number == 2 && f.type == WireType::kBytes) {
      TFG_ASSIGN_OR_RETURN(e.shape, ParseShape(f.bytes, where));
    }
    if (f.number == 3 && varint) shard = static_cast<int64_t>(f.value);
    if (f.number == 4 && varint) e.offset = f.value;
    if (f.number == 5 && varint) e.size = f.value;
    if (f.number == 6 && f.type == WireType::kFixed32) e.masked_crc = static_cast<uint32_t>(f.value);
    if (f.number == 7) {
      if (f.type != WireType::kBytes) return Corrupt(where + ": a slice is not a message");
      TFG_ASSIGN_OR_RETURN(TensorSlice slice, ParseSlice(f.bytes, where));
      e.slices.push_back(std::move(slice));
    }
  }
  TFG_ASSIGN_OR_RETURN(e.dtype, DTypeOfCode(dtype_code, where));
  if (shard < 0 || shard >= num_shards) {
    return Corrupt(fmt::format("{}: shard {} is not one of the {} shards", where, shard, num_shards));
  }
  e.shard = static_cast<int32_t>(shard);
  if (static_cast<int64_t>(e.offset) < 0 || static_cast<int64_t>(e.size) < 0) {
    return Corrupt(fmt::format("{}: negative offset or size", where));
  }
  return e;
}

size_t ElementBytes(DType d) { return d == DType::kBool ? 1 : DTypeSize(d); }

// The CRC TensorFlow keeps for string lengths: over each length as four
// little-endian bytes (a uint32, as its BundleWriter computes it), not over
// their varints.
uint32_t ExtendWithLength(uint32_t crc, uint64_t len) {
  const auto narrow = static_cast<uint32_t>(len);
  char b[4];
  std::memcpy(b, &narrow, 4);
  return Crc32c(b, 4, crc);
}

// Strings: the varint64 lengths, the masked CRC of the lengths, the
// strings. The entry's CRC covers the lengths (as above), the masked
// lengths CRC and the strings' bytes.
Status DecodeStrings(std::string_view data, uint32_t masked_crc, Tensor& t, const std::string& where) {
  std::string_view in = data;
  const int64_t n = t.num_elements();
  std::vector<uint64_t> lengths(static_cast<size_t>(n));  // n <= data.size(): checked by the caller
  uint32_t crc = 0;
  for (uint64_t& len : lengths) {
    if (!proto_wire::GetVarint(in, len)) return Corrupt(where + ": the string lengths run past the data");
    crc = ExtendWithLength(crc, len);
  }
  if (in.size() < 4) return Corrupt(where + ": the data ends before the lengths' checksum");
  uint32_t stored;
  std::memcpy(&stored, in.data(), 4);
  if (UnmaskCrc(stored) != crc) return Corrupt(where + ": the string lengths fail their checksum");
  crc = Crc32c(in.data(), in.size(), crc);
  if (UnmaskCrc(masked_crc) != crc) {
    return Corrupt(fmt::format("{}: its data (bytes +{}) fails its checksum", where, data.size()));
  }
  in.remove_prefix(4);
  for (int64_t i = 0; i < n; ++i) {
    if (lengths[i] > in.size()) return Corrupt(where + ": a string runs past the tensor's data");
    t.data<std::string>()[i].assign(in.substr(0, lengths[i]));
    in.remove_prefix(lengths[i]);
  }
  if (!in.empty()) return Corrupt(fmt::format("{}: {} bytes left over after the strings", where, in.size()));
  return Status::OK();
}

// Appends the strings of `t`; returns the entry's CRC (unmasked).
uint32_t EncodeStrings(const Tensor& t, std::string& out) {
  uint32_t crc = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const uint64_t len = t.data<std::string>()[i].size();
    proto_wire::PutVarint(out, len);
    crc = ExtendWithLength(crc, len);
  }
  const size_t from = out.size();
  const uint32_t masked = MaskCrc(crc);
  char b[4];
  std::memcpy(b, &masked, 4);
  out.append(b, 4);
  for (int64_t i = 0; i < t.num_elements(); ++i) out += t.data<std::string>()[i];
  return Crc32c(out.data() + from, out.size() - from, crc);
}

std::string EncodeShape(const TensorShape& shape) {
  std::string out;
  for (int64_t d : shape.dims()) {
    std::string dim;
    if (d != 0) proto_wire::PutVarintField(dim, 1, static_cast<uint64_t>(d));
    proto_wire::PutBytesField(out, 2, dim);
  }
  return out;
}

std::string EncodeEntry(DType dtype, const TensorShape& shape, uint64_t offset, uint64_t size, uint32_t masked_crc) {
  std::string out;
  proto_wire::PutVarintField(out, 1, static_cast<uint64_t>(CodeOf(dtype)));
  proto_wire::PutBytesField(out, 2, EncodeShape(shape));
  // shard_id 0 is proto3's default and, as TensorFlow does, not written.
  if (offset != 0) proto_wire::PutVarintField(out, 4, offset);
  if (size != 0) proto_wire::PutVarintField(out, 5, size);
  proto_wire::PutFixed32Field(out, 6, masked_crc);
  return out;
}

std::string EncodeHeader() {
  std::string version;
  proto_wire::PutVarintField(version, 1, kBundleVersion);
  std::string out;
  proto_wire::PutVarintField(out, 1, 1);  // one shard; little-endian is the default
  proto_wire::PutBytesField(out, 3, version);
  return out;
}

}  // namespace

Result<Index> DecodeIndex(std::string_view bytes) {
  TFG_ASSIGN_OR_RETURN(sstable::KeyValues table, sstable::ReadTable(bytes));
  if (table.empty() || !table.front().first.empty()) {
    return Corrupt("the index has no header entry; it is not a TensorFlow checkpoint index");
  }
  Index index;
  TFG_ASSIGN_OR_RETURN(index.num_shards, ParseHeader(table.front().second));
  for (size_t i = 1; i < table.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(IndexEntry e, ParseEntry(table[i].first, table[i].second, index.num_shards));
    if (!e.name.empty() && e.name[0] == '\0') {
      index.slice_entries.emplace(table[i].first, std::move(e));
    } else {
      index.entries.push_back(std::move(e));
    }
  }
  return index;
}

Result<Tensor> DecodeTensor(const IndexEntry& e, std::string_view shard) {
  const std::string where = "tensor " + Quoted(e.name);
  if (e.offset > shard.size() || e.size > shard.size() - e.offset) {
    return Corrupt(fmt::format("{}: bytes {}..+{} run past the end of its data file ({} bytes); the file is "
                               "truncated",
                               where, e.offset, e.size, shard.size()));
  }
  std::string_view data = shard.substr(e.offset, e.size);
  // A string tensor's checksum is checked as its lengths are read.
  if (e.dtype != DType::kString && UnmaskCrc(e.masked_crc) != Crc32c(data.data(), data.size())) {
    return Corrupt(fmt::format("{}: its data (bytes {}..+{}) fails its checksum", where, e.offset, e.size));
  }
  const bool is_string = e.dtype == DType::kString;
  const size_t elem = is_string ? 1 : ElementBytes(e.dtype);
  TFG_ASSIGN_OR_RETURN(int64_t n, checkpoint::CheckedElementCount(e.shape, data.size(), elem, where));
  if (!is_string && static_cast<uint64_t>(n) * elem != data.size()) {
    return Corrupt(fmt::format("{}: {} {} elements need {} bytes, the entry has {}", where, n, DTypeName(e.dtype),
                               static_cast<uint64_t>(n) * elem, data.size()));
  }
  auto t = Tensor::Allocate(HostAllocator(), e.dtype, e.shape);
  if (!t.ok()) return Status(t.status()).Prepend(where + ": ");
  if (is_string) {
    TFG_RETURN_IF_ERROR(DecodeStrings(data, e.masked_crc, *t, where));
  } else if (e.dtype == DType::kBool) {
    for (int64_t i = 0; i < n; ++i) {
      const auto b = static_cast<unsigned char>(data[i]);
      if (b > 1) return Corrupt(fmt::format("{}: bool element {} holds byte {}", where, i, b));
      t->data<bool>()[i] = b == 1;
    }
  } else if (n > 0) {
    std::memcpy(t->raw_data(), data.data(), data.size());
  }
  return std::move(*t);
}

Result<Encoded> EncodeBundle(const std::vector<checkpoint::Entry>& entries) {
  std::vector<const checkpoint::Entry*> sorted;
  for (const checkpoint::Entry& e : entries) {
    if (e.name.empty()) return InvalidArgument("a tensor of a TensorFlow checkpoint needs a name");
    if (!e.value.IsInitialized()) return InvalidArgument("tensor '{}' has no value", e.name);
    sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  Encoded out;
  sstable::KeyValues table{{"", EncodeHeader()}};
  for (const checkpoint::Entry* e : sorted) {
    if (table.back().first == e->name) return InvalidArgument("two tensors are both named '{}'", e->name);
    const Tensor& t = e->value;
    const size_t offset = out.data.size();
    uint32_t crc = 0;
    if (t.dtype() == DType::kString) {
      crc = EncodeStrings(t, out.data);
    } else if (t.dtype() == DType::kBool) {
      for (int64_t i = 0; i < t.num_elements(); ++i) out.data.push_back(t.data<bool>()[i] ? 1 : 0);
    } else if (t.num_elements() > 0) {
      out.data.append(static_cast<const char*>(t.raw_data()), t.bytes());
    }
    const size_t size = out.data.size() - offset;
    if (t.dtype() != DType::kString) crc = Crc32c(out.data.data() + offset, size);
    table.emplace_back(e->name, EncodeEntry(t.dtype(), t.shape(), offset, size, MaskCrc(crc)));
  }
  TFG_ASSIGN_OR_RETURN(out.index, sstable::WriteTable(table));
  return out;
}

std::string IndexPath(const std::string& prefix) { return prefix + ".index"; }

std::string DataPath(const std::string& prefix, int32_t shard, int32_t num_shards) {
  return fmt::format("{}.data-{:05d}-of-{:05d}", prefix, shard, num_shards);
}

}  // namespace tfg::tf_bundle
