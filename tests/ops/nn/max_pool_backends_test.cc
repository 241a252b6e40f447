// max_pool and max_pool_grad through each CPU backend (ops/nn/conv_backend.h
// selects oneDNN's max_pool with the convolutions, where the AVX-512 loops
// do not run; max_pool_grad runs tfg's loop under both, see
// ops/nn/pool_onednn.h), and oneDNN's pooling called directly, so that it
// is tested on CPUs where the ops do not pick it: batches that split into
// uneven slices, channel counts with and without a vector remainder, SAME
// and VALID, strides smaller and larger than the window, many ties, and
// NaN, -inf and -FLT_MAX. Max pooling is exact, so every value must equal
// the plain loop below (TensorFlow's rule: the first maximum in row-major
// window order wins, a NaN is the maximum), computed independently of both.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/nn/conv_backend.h"
#include "ops/nn/pool_onednn.h"
#include "ops/nn/window.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/nn/conv_backend_fixture.h"
#include "tests/ops/nn/nn_test_util.h"
#include "tests/ops/nn/pool_test_shapes.h"

namespace tfg::max_pool_backends_test {
namespace {

using Shape = test::PoolShape;

const Shape kShapes[] = {
    {"cnn_2x2_s2", 7, 28, 28, 32, 2, 2, 2, 2, false},
    {"odd_same_3x3_s2", 5, 9, 11, 19, 3, 3, 2, 2, true},
    {"overlapping_3x3_s1", 3, 8, 7, 16, 3, 3, 1, 1, true},
    {"stride_past_window", 4, 11, 10, 5, 2, 3, 3, 4, false},
    {"valid_leftover", 2, 9, 8, 24, 3, 2, 2, 2, false},
    {"rect_same", 6, 6, 9, 3, 2, 4, 1, 3, true},
    {"single_image_wide", 1, 5, 5, 64, 5, 5, 1, 1, true},
};

struct Expected {
  std::vector<double> y, dx;
};

// y = each window's maximum, dx = dy added at each window's argmax.
Expected Naive(const Shape& s, const std::vector<double>& x, const std::vector<double>& dy, int64_t oh, int64_t ow,
               int64_t pad_top, int64_t pad_left) {
  Expected e{std::vector<double>(static_cast<size_t>(s.n * oh * ow * s.c)), std::vector<double>(x.size(), 0.0)};
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ch = 0; ch < s.c; ++ch) {
          int64_t best = -1;
          for (int64_t p = i * s.sh - pad_top; p < i * s.sh - pad_top + s.kh; ++p)
            for (int64_t q = j * s.sw - pad_left; q < j * s.sw - pad_left + s.kw; ++q) {
              if (p < 0 || p >= s.h || q < 0 || q >= s.w) continue;
              const int64_t at = ((b * s.h + p) * s.w + q) * s.c + ch;
              if (best < 0 || (!std::isnan(x[best]) && (std::isnan(x[at]) || x[at] > x[best]))) best = at;
            }
          const int64_t out = ((b * oh + i) * ow + j) * s.c + ch;
          e.y[out] = x[best];
          e.dx[best] += dy[out];
        }
  return e;
}

// Few distinct values, so most windows hold ties.
std::vector<double> TiedValues(int64_t count, int64_t a, int64_t b) {
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<double>((i * a + b) % 7) - 3.0;
  return v;
}

class MaxPoolBackends : public test::EachConvBackend {
 protected:
  // Runs both ops on x and checks them against the plain loop, exactly.
  static void Check(const Shape& s, const std::vector<double>& x) {
    const auto [oh, ow, pad_top, pad_left] = test::PoolOutputOf(s);
    const TensorShape xs({s.n, s.h, s.w, s.c}), ys({s.n, oh, ow, s.c});
    std::vector<double> dy(static_cast<size_t>(ys.num_elements()));
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = static_cast<double>(i % 9) - 4.0;  // sums stay exact
    const Expected e = Naive(s, x, dy, oh, ow, pad_top, pad_left);
    const AttrMap attrs = {{"ksize", std::vector<int64_t>{s.kh, s.kw}},
                           {"strides", std::vector<int64_t>{s.sh, s.sw}},
                           {"padding", std::string(s.same ? "SAME" : "VALID")}};
    const Tensor tx = test::MakeTensorOf(DType::kF32, x, xs);
    test::ExpectTensorNear(test::Eval("max_pool", {tx}, attrs), e.y, ys, 0.0);
    test::ExpectTensorNear(test::Eval("max_pool_grad", {tx, test::MakeTensorOf(DType::kF32, dy, ys)}, attrs), e.dx,
                           xs, 0.0);
  }
};

TEST_P(MaxPoolBackends, MatchAPlainLoopExactly) {
  EXPECT_EQ(nn::CpuConvBackend(), GetParam());
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    Check(s, TiedValues(s.n * s.h * s.w * s.c, 5, 2));
  }
}

// A NaN must win its window and a window of -inf pool to -inf (and route
// its gradient to its first pixel): oneDNN's pooling gets neither right by
// itself, so max_pool hands such inputs to the reference. -FLT_MAX, the
// value oneDNN starts each maximum at, stays on oneDNN and must come out
// as itself.
TEST_P(MaxPoolBackends, NaNAndLowestValuesFollowTensorFlow) {
  const Shape s = {"special_values", 3, 6, 6, 17, 3, 3, 2, 2, true};
  const std::vector<double> specials = {std::nan(""), -HUGE_VAL, -static_cast<double>(FLT_MAX)};
  for (double special : specials) {
    SCOPED_TRACE(special);
    std::vector<double> x = TiedValues(s.n * s.h * s.w * s.c, 3, 1);
    for (size_t i = 0; i < x.size(); i += 37) x[i] = special;
    // One image whose first channel is all `special`: every window ties.
    for (int64_t p = 0; p < s.h * s.w; ++p) x[static_cast<size_t>((s.h * s.w + p) * s.c)] = special;
    Check(s, x);
  }
}

TEST(OneDnnMaxPool, MatchesAPlainLoopExactly) {
  if (!nn::OneDnnBuilt()) GTEST_SKIP() << "built without oneDNN";
  KernelConstruction info;
  info.device = test::TestCpuDevice();
  const OpKernelContext ctx(&info, nullptr, 0, nullptr, 0, nullptr, nullptr);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    nn::Geometry g;
    ASSERT_NO_FATAL_FAILURE(test::PoolGeometryOf(s, &g));
    const auto [oh, ow, pad_top, pad_left] = test::PoolOutputOf(s);
    const std::vector<double> x = TiedValues(s.n * s.h * s.w * s.c, 5, 2);
    const std::vector<double> dy(static_cast<size_t>(s.n * oh * ow * s.c));
    const Expected e = Naive(s, x, dy, oh, ow, pad_top, pad_left);
    const std::vector<float> xf(x.begin(), x.end());
    std::vector<float> y(e.y.size(), 77.0f);
    const bool ran = nn::onednn::MaxPoolForward(ctx, g, xf.data(), y.data());
#if defined(__x86_64__)
    ASSERT_TRUE(ran);  // oneDNN JIT-compiles pooling for every x86-64
#else
    if (!ran) GTEST_SKIP() << "oneDNN has no JIT pooling for this CPU";
#endif
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], static_cast<float>(e.y[i])) << "at " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MaxPoolBackends,
                         ::testing::Values(nn::ConvBackend::kReference, nn::ConvBackend::kOneDnn),
                         [](const auto& info) {
                           return std::string(info.param == nn::ConvBackend::kOneDnn ? "OneDnn" : "Reference");
                         });

}  // namespace
}  // namespace tfg::max_pool_backends_test
