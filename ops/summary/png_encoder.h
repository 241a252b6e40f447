// A minimal PNG encoder for image summaries: 8-bit grayscale, grayscale +
// alpha, RGB or RGBA; each row unfiltered, the whole image deflated with
// zlib (PNG's own compression), chunks checked with CRC-32.
#pragma once

#include <cstdint>
#include <string>

#include "ops/core/status.h"

namespace tfg::summary {

// `pixels` holds height rows of width * channels bytes, channels 1 to 4
// (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA).
Result<std::string> EncodePng(const uint8_t* pixels, int64_t height, int64_t width, int channels);

}  // namespace tfg::summary
