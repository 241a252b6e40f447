// The window geometry of ops/nn/window.h against TensorFlow's rules
// (GetWindowedOutputSize): VALID gives (in - effective) / stride + 1 and no
// padding; SAME gives ceil(in / stride) with pad_needed = max(0,
// (out - 1) * stride + effective - in), pad_before = pad_needed / 2 and the
// rest after.
#include "ops/nn/window.h"

#include <gtest/gtest.h>

#include <tuple>

namespace tfg::window_test {
namespace {

using nn::Padding;

std::tuple<int64_t, int64_t, int64_t> Dim(int64_t in, int64_t k, int64_t stride, int64_t dilation, Padding p) {
  auto d = nn::ComputeSpatialDim("conv2d", "height", in, k, stride, dilation, p);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  if (!d.ok()) return {-2, -2, -2};
  return {d->out, d->pad_before, d->pad_after};
}

TEST(ComputeSpatialDim, SamePutsTheOddPaddingAfter) {
  // 5 by 2 with stride 2: 3 outputs need 1 padding row, after.
  EXPECT_EQ(Dim(5, 2, 2, 1, Padding::kSame), std::make_tuple(3, 0, 1));
  // 7 by 3 with stride 2: 4 outputs need 2 rows, one each side.
  EXPECT_EQ(Dim(7, 3, 2, 1, Padding::kSame), std::make_tuple(4, 1, 1));
  // 6 by 3 with stride 2: 3 outputs need 1 row, after.
  EXPECT_EQ(Dim(6, 3, 2, 1, Padding::kSame), std::make_tuple(3, 0, 1));
  // 3 dilated by 2 spans 5: 9 outputs need 4 rows, 2 each side.
  EXPECT_EQ(Dim(9, 3, 1, 2, Padding::kSame), std::make_tuple(9, 2, 2));
  // A stride past the window needs none (pad_needed would be -1).
  EXPECT_EQ(Dim(5, 1, 3, 1, Padding::kSame), std::make_tuple(2, 0, 0));
}

TEST(ComputeSpatialDim, ValidNeverPads) {
  EXPECT_EQ(Dim(9, 3, 2, 1, Padding::kValid), std::make_tuple(4, 0, 0));
  EXPECT_EQ(Dim(8, 2, 3, 1, Padding::kValid), std::make_tuple(3, 0, 0));
  EXPECT_EQ(Dim(9, 3, 1, 2, Padding::kValid), std::make_tuple(5, 0, 0));
  EXPECT_EQ(Dim(-1, 3, 1, 1, Padding::kValid), std::make_tuple(-1, 0, 0));  // unknown input
  EXPECT_EQ(nn::ComputeSpatialDim("conv2d", "height", 4, 3, 1, 2, Padding::kValid).status().message(),
            "conv2d: the window height 5 (3 dilated by 2) is larger than the input height 4 with padding=\"VALID\"");
}

TEST(ComputeGeometry, BothSpatialDimsOfAnNhwcInput) {
  nn::WindowAttrs a;
  a.strides = {2, 2};
  a.padding = Padding::kSame;
  auto g = nn::ComputeGeometry("max_pool", {2, 7, 6, 3}, 3, 3, a);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(std::make_tuple(g->n, g->h, g->w, g->c), std::make_tuple(2, 7, 6, 3));
  EXPECT_EQ(std::make_tuple(g->oh, g->ow), std::make_tuple(4, 3));
  EXPECT_EQ(std::make_tuple(g->pad_top, g->pad_bottom), std::make_tuple(1, 1));
  EXPECT_EQ(std::make_tuple(g->pad_left, g->pad_right), std::make_tuple(0, 1));
  EXPECT_EQ(nn::ComputeGeometry("max_pool", {7, 6, 3}, 3, 3, a).status().message(),
            "max_pool: input must be 4-D [batch, height, width, channels], got [7, 6, 3]");
}

}  // namespace
}  // namespace tfg::window_test
