// Python's format-spec mini-language, as f"{x:.3f}" and f"{name:>10}" use
// it: [[fill]align][sign][#][0][width][,|_][.precision][type].
#pragma once

#include <string>
#include <string_view>

#include "interp/language/value.h"

namespace tfg {

// `v` formatted by `spec`. Numbers may be host numbers, bools or one-element
// host tensors; any other value is formatted as its print() text (only
// fill, align, width and precision apply to it). An empty spec gives the
// print() text.
Result<std::string> FormatWithSpec(const Value& v, std::string_view spec);

}  // namespace tfg
