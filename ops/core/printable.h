// Bytes from a file or a peer shown in an error message: they may hold
// terminal escape sequences or megabytes, so they are escaped and cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tfg {

// `bytes` with every byte outside printable ASCII written as \xNN (and a
// backslash as \\), cut after `max_bytes` of input with "... (N bytes)"
// saying how long the whole was.
std::string PrintableBytes(std::string_view bytes, size_t max_bytes = 64);

}  // namespace tfg
