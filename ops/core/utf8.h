// Strict UTF-8 decoding (shortest forms, no surrogates, nothing past
// U+10FFFF), for the readers and writers that must refuse anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tfg {

// Decodes the character starting at s[i] into `c`; returns its length in
// bytes, or 0 when the bytes there are not valid UTF-8.
inline int DecodeUtf8At(std::string_view s, size_t i, uint32_t& c) {
  const auto b = static_cast<uint8_t>(s[i]);
  const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  c = len == 1 ? b : b & (0x7f >> len);
  for (int k = 1; k < len; ++k) {
    const auto cont = static_cast<uint8_t>(s[i + k]);
    if ((cont >> 6) != 2) return 0;
    c = (c << 6) | (cont & 0x3f);
  }
  constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMin[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  return len;
}

}  // namespace tfg
