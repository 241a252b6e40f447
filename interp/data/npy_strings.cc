#include "interp/data/npy_strings.h"

#include <algorithm>
#include <cstring>

#include "interp/data/byte_order.h"
#include "ops/core/utf8.h"

namespace tfg::data {
namespace {

// Appends code point `c` as UTF-8; false for a surrogate or a value past
// U+10FFFF, which no valid string holds.
bool AppendUtf8(uint32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else if (c < 0x10000) {
    if (c >= 0xd800 && c <= 0xdfff) return false;
    out.push_back(static_cast<char>(0xe0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else if (c <= 0x10ffff) {
    out.push_back(static_cast<char>(0xf0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else {
    return false;
  }
  return true;
}

// The code points of `s` when it is valid UTF-8 (shortest forms, no
// surrogates), else nothing.
std::optional<std::vector<uint32_t>> DecodeUtf8(const std::string& s) {
  std::vector<uint32_t> out;
  uint32_t c = 0;
  for (size_t i = 0; i < s.size();) {
    const int len = DecodeUtf8At(s, i, c);
    if (len == 0) return std::nullopt;
    out.push_back(c);
    i += static_cast<size_t>(len);
  }
  return out;
}

}  // namespace

Result<bool> ParseNpyStringDescr(const std::string& descr, const std::string& file, NpyStringType& type) {
  if (descr.size() < 2 || (descr[1] != 'S' && descr[1] != 'a' && descr[1] != 'U')) return false;
  const std::string digits = descr.substr(2);
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Error(Code::kDataLoss, "'{}' has a malformed header: '{}' is not a NumPy dtype", file, descr);
  }
  type.unicode = descr[1] == 'U';
  type.big_endian = descr[0] == '>';
  type.width = static_cast<size_t>(std::stoul(digits));
  if (type.width == 0) return Unimplemented("'{}' holds zero-width strings (dtype '{}'): not supported", file, descr);
  return true;
}

Result<Tensor> DecodeNpyStrings(const unsigned char* raw, const NpyStringType& type, const std::vector<int64_t>& dims,
                                const std::string& file) {
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), DType::kString, TensorShape(dims)));
  const size_t elem = type.bytes();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const unsigned char* p = raw + static_cast<size_t>(i) * elem;
    std::string& s = t.data<std::string>()[i];
    if (!type.unicode) {
      size_t len = type.width;
      while (len > 0 && p[len - 1] == 0) --len;
      s.assign(reinterpret_cast<const char*>(p), len);
      continue;
    }
    size_t len = type.width;
    while (len > 0 && LoadBytes<uint32_t>(p + 4 * (len - 1), type.big_endian) == 0) --len;
    for (size_t k = 0; k < len; ++k) {
      const uint32_t c = LoadBytes<uint32_t>(p + 4 * k, type.big_endian);
      if (!AppendUtf8(c, s)) {
        return Error(Code::kDataLoss, "'{}': string element {} holds U+{:X}, which is not a character", file, i, c);
      }
    }
  }
  return t;
}

EncodedNpyStrings EncodeNpyStrings(const Tensor& t) {
  const int64_t n = t.num_elements();
  const std::string* in = t.data<std::string>();
  std::vector<std::vector<uint32_t>> points;
  bool unicode = true;
  for (int64_t i = 0; i < n && unicode; ++i) {
    auto cps = DecodeUtf8(in[i]);
    if (cps) {
      points.push_back(std::move(*cps));
    } else {
      unicode = false;
    }
  }
  EncodedNpyStrings out;
  size_t width = 1;
  if (unicode) {
    for (const auto& p : points) width = std::max(width, p.size());
    out.descr = fmt::format("<U{}", width);
    out.data.assign(static_cast<size_t>(n) * width * 4, '\0');
    for (int64_t i = 0; i < n; ++i) {
      auto* p = reinterpret_cast<unsigned char*>(out.data.data()) + static_cast<size_t>(i) * width * 4;
      for (size_t k = 0; k < points[i].size(); ++k) StoreLittleEndian<uint32_t>(points[i][k], p + 4 * k);
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i) width = std::max(width, in[i].size());
  out.descr = fmt::format("|S{}", width);
  out.data.assign(static_cast<size_t>(n) * width, '\0');
  for (int64_t i = 0; i < n; ++i) std::memcpy(out.data.data() + static_cast<size_t>(i) * width, in[i].data(), in[i].size());
  return out;
}

std::vector<unsigned char> FortranToRowMajor(const unsigned char* raw, size_t elem_bytes,
                                             const std::vector<int64_t>& dims) {
  const int r = static_cast<int>(dims.size());
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<unsigned char> out(static_cast<size_t>(n) * elem_bytes);
  std::vector<int64_t> stride(r), idx(r, 0);
  int64_t acc = 1;
  for (int k = 0; k < r; ++k) {
    stride[k] = acc;
    acc *= dims[k];
  }
  int64_t offset = 0;
  for (int64_t c = 0; c < n; ++c) {
    std::memcpy(out.data() + c * elem_bytes, raw + offset * elem_bytes, elem_bytes);
    for (int k = r - 1; k >= 0; --k) {
      if (++idx[k] < dims[k]) {
        offset += stride[k];
        break;
      }
      offset -= stride[k] * (dims[k] - 1);
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace tfg::data
