// CRC-32C (Castagnoli), the checksum of checkpoints and record files.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tfg {

// The CRC-32C of `n` bytes, continuing from `crc` (0 to start).
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

// A CRC stored next to the data it covers is masked, so that a checksum of
// a buffer that itself holds checksums stays well distributed (the
// convention of LevelDB and TFRecord).
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t UnmaskCrc(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace tfg
