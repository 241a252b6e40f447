#include "ops/io/tf_bundle_slices.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "ops/core/allocator.h"

namespace tfg::tf_bundle {
namespace {

Status SliceCorrupt(const std::string& what) { return Status(Code::kDataLoss, what); }

// OrderedCode::WriteNumIncreasing: a length byte, then the value's bytes
// big-endian without leading zeros.
void OrderedNum(std::string& out, uint64_t v) {
  char bytes[8];
  int n = 0;
  for (uint64_t x = v; x != 0; x >>= 8) bytes[n++] = static_cast<char>(x & 0xff);
  out.push_back(static_cast<char>(n));
  while (n > 0) out.push_back(bytes[--n]);
}

// OrderedCode::WriteString: 0x00 -> 00 ff, 0xff -> ff 00, ended by 00 01.
void OrderedString(std::string& out, const std::string& s) {
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xff');
    if (c == '\xff') out.push_back('\0');
  }
  out.append("\0\x01", 2);
}

// OrderedCode::WriteSignedNumIncreasing: the value big-endian, sign
// extended, in the fewest bytes L that hold it with L header bits (ones,
// then a zero) and the sign; L = bits / 7 + 1 for a magnitude of `bits` bits.
void OrderedSignedNum(std::string& out, int64_t v) {
  const uint64_t x = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int bits = 0;
  for (uint64_t t = x; t != 0; t >>= 1) ++bits;
  const int len = bits / 7 + 1;  // 1..10
  unsigned char buf[10];
  const unsigned char sign = v < 0 ? 0xff : 0x00;
  buf[0] = buf[1] = sign;
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(v) >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  // len header bits: the first byte's top bits, spilling into the second for len 9 and 10.
  const int ones = len - 1;
  const unsigned char h0 = static_cast<unsigned char>(0xff00 >> std::min(len, 8));
  const unsigned char h1 = ones >= 8 ? static_cast<unsigned char>(0xff00 >> (len - 8)) : 0;
  begin[0] ^= h0;
  if (len >= 2) begin[1] ^= h1;
  out.append(reinterpret_cast<const char*>(begin), static_cast<size_t>(len));
}

// Each dimension's [start, start + length) with whole dimensions resolved.
Result<std::vector<std::pair<int64_t, int64_t>>> ResolveExtents(const TensorSlice& slice, const TensorShape& full,
                                                          const std::string& where) {
  if (static_cast<int>(slice.size()) != full.rank()) {
    return SliceCorrupt(fmt::format("{}: a slice of rank {} for a tensor of shape {}", where, slice.size(), full.ToString()));
  }
  std::vector<std::pair<int64_t, int64_t>> out;
  for (int d = 0; d < full.rank(); ++d) {
    const SliceExtent& x = slice[static_cast<size_t>(d)];
    const int64_t len = x.length < 0 ? full.dim(d) - x.start : x.length;
    if (x.start > full.dim(d) || len < 0 || len > full.dim(d) - x.start) {
      return SliceCorrupt(fmt::format("{}: a slice runs past dimension {} (size {})", where, d, full.dim(d)));
    }
    out.emplace_back(x.start, len);
  }
  return out;
}

// Copies `part` into its place in `full`, one run of the last dimension at
// a time, marking what it covers.
Status CopySliceInto(const Tensor& part, const std::vector<std::pair<int64_t, int64_t>>& at, Tensor& full,
                std::vector<bool>& covered, const std::string& where) {
  const int rank = full.rank();
  const int64_t n = part.num_elements();
  if (n == 0) return Status::OK();
  const int64_t run = rank == 0 ? 1 : at.back().second;
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * full.dim(d + 1);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  const size_t elem = full.dtype() == DType::kString ? 0 : (full.dtype() == DType::kBool ? sizeof(bool) : DTypeSize(full.dtype()));
  for (int64_t from = 0; from < n; from += run) {
    int64_t to = 0;
    for (int d = 0; d < rank; ++d) to += (at[d].first + index[d]) * strides[d];
    for (int64_t k = 0; k < run; ++k) {
      if (covered[static_cast<size_t>(to + k)]) return SliceCorrupt(where + ": two slices overlap");
      covered[static_cast<size_t>(to + k)] = true;
    }
    if (elem == 0) {
      for (int64_t k = 0; k < run; ++k) full.data<std::string>()[to + k] = part.data<std::string>()[from + k];
    } else {
      std::memcpy(static_cast<char*>(full.raw_data()) + to * elem, static_cast<const char*>(part.raw_data()) + from * elem,
                  static_cast<size_t>(run) * elem);
    }
    for (int d = rank - 2; d >= 0; --d) {  // the next run: odometer over all but the last dimension
      if (++index[d] < at[d].second) break;
      index[d] = 0;
    }
  }
  return Status::OK();
}

}  // namespace

std::string SliceKey(const std::string& name, const TensorSlice& slice) {
  std::string key;
  OrderedNum(key, 0);
  OrderedString(key, name);
  OrderedNum(key, slice.size());
  for (const SliceExtent& x : slice) {
    OrderedSignedNum(key, x.start);
    OrderedSignedNum(key, x.length);
  }
  return key;
}

Result<Tensor> AssembleSlices(const IndexEntry& e, const Index& index,
                              const std::function<Result<Tensor>(const IndexEntry&)>& decode) {
  const std::string where = fmt::format("partitioned tensor '{}'", e.name);
  auto full = Tensor::Allocate(HostAllocator(), e.dtype, e.shape);
  if (!full.ok()) return Status(full.status()).Prepend(where + ": ");
  std::vector<bool> covered(static_cast<size_t>(full->num_elements()), false);
  for (size_t s = 0; s < e.slices.size(); ++s) {
    TFG_ASSIGN_OR_RETURN(auto at, ResolveExtents(e.slices[s], e.shape, where));
    auto it = index.slice_entries.find(SliceKey(e.name, e.slices[s]));
    if (it == index.slice_entries.end()) return SliceCorrupt(fmt::format("{}: the index has no entry for slice {}", where, s));
    if (it->second.dtype != e.dtype) return SliceCorrupt(fmt::format("{}: slice {} has another dtype", where, s));
    std::vector<int64_t> dims;
    for (const auto& [start, len] : at) dims.push_back(len);
    if (it->second.shape != TensorShape(dims)) {
      return SliceCorrupt(fmt::format("{}: slice {} has shape {}, its extent says {}", where, s, it->second.shape.ToString(),
                                 TensorShape(dims).ToString()));
    }
    TFG_ASSIGN_OR_RETURN(Tensor part, decode(it->second));
    TFG_RETURN_IF_ERROR(CopySliceInto(part, at, *full, covered, where));
  }
  for (bool c : covered) {
    if (!c) return SliceCorrupt(where + ": its slices do not cover the whole tensor");
  }
  return std::move(*full);
}

}  // namespace tfg::tf_bundle
