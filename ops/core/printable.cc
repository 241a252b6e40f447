#include "ops/core/printable.h"

#include <fmt/format.h>

namespace tfg {

std::string PrintableBytes(std::string_view bytes, size_t max_bytes) {
  std::string out;
  const std::string_view shown = bytes.substr(0, max_bytes);
  for (char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (shown.size() < bytes.size()) out += fmt::format("... ({} bytes)", bytes.size());
  return out;
}

}  // namespace tfg
