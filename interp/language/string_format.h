// `"loss %.4f at step %d" % [l, step]`: Python's printf-style string
// formatting, which training scripts use to print their progress.
#pragma once

#include <string>

#include "interp/language/value.h"

namespace tfg {

// Formats `args` (one value, or a list of them for several conversions)
// into `format`: %d %i %u %f %F %e %E %g %G %x %X %o %c %s %r and %%, with
// the flags - + space 0 #, a width and a precision. Numbers may be host
// numbers, bools or one-element host tensors.
Result<std::string> PercentFormat(const std::string& format, const Value& args);

}  // namespace tfg
