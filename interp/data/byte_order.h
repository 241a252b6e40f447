// Byte-level helpers shared by the data readers: loading numbers stored
// big- or little-endian regardless of the host's order, and the size of a
// block of data a file header describes, computed without overflow.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace tfg::data {

template <typename T>
T LoadBytes(const unsigned char* p, bool big_endian) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (big_endian != (std::endian::native == std::endian::big)) {
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  }
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

template <typename T>
T LoadBigEndian(const unsigned char* p) {
  return LoadBytes<T>(p, true);
}

template <typename T>
T LoadLittleEndian(const unsigned char* p) {
  return LoadBytes<T>(p, false);
}

template <typename T>
void StoreLittleEndian(T v, unsigned char* p) {
  std::memcpy(p, &v, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(p[i], p[sizeof(T) - 1 - i]);
  }
}

// Bytes of `dims` elements of `elem_size` bytes each, or nullopt when a
// header's dims are absurd: negative, or a product (of the non-zero dims,
// so that every partial product a shape computes stays in range) past
// INT64_MAX.
inline std::optional<uint64_t> DataBytes(const std::vector<int64_t>& dims, size_t elem_size) {
  constexpr uint64_t kMax = INT64_MAX;
  uint64_t product = elem_size;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) {
      zero = true;
      continue;
    }
    if (product > kMax / static_cast<uint64_t>(d)) return std::nullopt;
    product *= static_cast<uint64_t>(d);
  }
  return zero ? 0 : product;
}

}  // namespace tfg::data
