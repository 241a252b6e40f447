// The header of a NumPy .npy file: the magic "\x93NUMPY", a version, the
// header's length, then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces to a multiple of 64 bytes and ended by '\n'.
// This file parses that dict (a small subset of Python literals, never
// evaluated) and writes it exactly as NumPy does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/status.h"

namespace tfg::data {

inline constexpr std::string_view kNpyMagic = "\x93NUMPY";

struct NpyHeader {
  std::string descr;  // '<f4', '|b1', ... ('descr' must be a string: structured dtypes are refused)
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Parses the dict text. Errors name `file` and what was expected where:
// "'a.npy' has a malformed header: expected ':' after 'shape' (at byte 40 of
// the header)". A structured dtype (a list for 'descr') is Unimplemented.
Result<NpyHeader> ParseNpyHeader(std::string_view text, const std::string& file);

// The magic, version, length and padded dict for `header`, byte for byte as
// NumPy's np.save writes them (format 1.0, or 2.0 when the dict needs more
// than 65535 bytes).
std::string FormatNpyHeader(const NpyHeader& header);

}  // namespace tfg::data
