// Convolution geometries the CPU convolution tests share (strides, SAME
// and VALID, dilation, pointwise, a single image, and 3x3 stride-1 shapes
// wide enough for oneDNN's Winograd: the test device cuts a batch into 4
// slices, so 34 images make slices of 9, 9, 9 and 7, the last too small
// for it; 130 images, 16 or more a slice, are cut into 8: 17 each and 11),
// and the values they fill tensors with.
#pragma once

#include <cstdint>
#include <vector>

namespace tfg::test {

struct ConvShape {
  const char* name;
  int64_t n, h, w, c, kh, kw, o, sh, sw, dh, dw;
  bool same;
};

inline const ConvShape kConvShapes[] = {
    {"cnn_first_layer", 6, 12, 12, 1, 3, 3, 32, 1, 1, 1, 1, true},
    {"wide_channels", 5, 9, 9, 32, 3, 3, 64, 1, 1, 1, 1, true},
    {"strided_same", 3, 11, 10, 16, 3, 3, 32, 2, 2, 1, 1, true},
    {"valid_leftover", 2, 8, 9, 8, 3, 3, 16, 2, 2, 1, 1, false},
    {"dilated", 3, 10, 10, 4, 3, 2, 8, 1, 1, 2, 3, true},
    {"pointwise_strided", 4, 8, 8, 16, 1, 1, 32, 2, 2, 1, 1, false},
    {"single_image", 1, 7, 7, 3, 5, 5, 6, 1, 1, 1, 1, true},
    {"two_slices_a_thread", 130, 4, 4, 32, 3, 3, 32, 1, 1, 1, 1, true},
    {"winograd_same", 34, 10, 11, 32, 3, 3, 48, 1, 1, 1, 1, true},
    {"winograd_valid", 32, 9, 9, 32, 3, 3, 32, 1, 1, 1, 1, false},
};

// Values in [-1, 1) from a fixed linear congruential sequence.
inline std::vector<double> LcgValues(int64_t count, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(count));
  for (double& x : v) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(seed >> 40) / static_cast<double>(1ULL << 23) - 1.0;
  }
  return v;
}

}  // namespace tfg::test
