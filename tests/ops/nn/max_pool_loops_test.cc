// Each compiled copy of the max_pool loops (ops/nn/max_pool_loops.h: the
// baseline one, and the AVX-512 one where this CPU runs it), called
// directly, so that the copy the ops do not pick is tested too. Shapes
// cover channel counts around every vector width (1, 3, 16 + 1, 16 + 8 +
// 4 + 1, 2 * 16 + 8 + 4 + 3, 32, 64 floats; half as many doubles per
// vector), whole 2x2 and 3x3 windows (the unrolled paths) beside windows
// cut by SAME padding or the image's edge, tiling, disjoint and
// overlapping windows. Values hold many ties, NaN, -inf and -FLT_MAX; every
// output must equal, bit for bit, the plain loop below (TensorFlow's rule:
// the first maximum in row-major window order wins, a NaN is the maximum),
// the taps pair's too (routed by the argmax bytes instead of the image).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ops/nn/max_pool_loops.h"
#include "tests/ops/nn/pool_test_shapes.h"

namespace tfg::max_pool_loops_test {
namespace {

namespace loops = nn::max_pool_loops;

using Shape = test::PoolShape;

const Shape kShapes[] = {
    {"tiling_2x2_c32", 3, 8, 6, 32, 2, 2, 2, 2, false},
    {"tiling_2x2_c64", 2, 6, 4, 64, 2, 2, 2, 2, false},
    {"tiling_2x2_c29", 2, 4, 6, 29, 2, 2, 2, 2, false},
    {"same_2x2_odd_c47", 2, 5, 7, 47, 2, 2, 2, 2, true},
    {"valid_2x2_leftover_c17", 2, 5, 7, 17, 2, 2, 2, 2, false},
    {"overlap_2x2_s1_c3", 2, 5, 4, 3, 2, 2, 1, 1, false},
    {"overlap_3x3_s1_same_c17", 2, 6, 5, 17, 3, 3, 1, 1, true},
    {"overlap_3x3_s2_same_c29", 2, 7, 9, 29, 3, 3, 2, 2, true},
    {"disjoint_3x3_s3_c1", 2, 9, 7, 1, 3, 3, 3, 3, false},
    {"stride_past_window_c47", 2, 11, 10, 47, 2, 3, 3, 4, false},
    {"wide_same_5x5_c64", 1, 5, 5, 64, 5, 5, 1, 1, true},
};

// One output index of the plain loop: the window's first maximum.
template <typename T>
struct Reference {
  std::vector<T> y, dx, gathered;
  std::vector<T> relu_dx;  // relu_grad(dx, x): dx where x > 0, else 0
};

template <typename T>
Reference<T> Plain(const Shape& s, const std::vector<T>& x, const std::vector<T>& dy, const std::vector<T>& grad,
                   int64_t oh, int64_t ow, int64_t pad_top, int64_t pad_left) {
  Reference<T> r{std::vector<T>(dy.size()), std::vector<T>(x.size(), T(0)), std::vector<T>(dy.size()), {}};
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
          r.y[out] = x[best];
          r.dx[best] += dy[out];
          r.gathered[out] = grad[best];
        }
  r.relu_dx.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) r.relu_dx[i] = x[i] > T(0) ? r.dx[i] : T(0);
  return r;
}

template <typename T>
void ExpectSameBits(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << "[" << i << "] = " << got[i] << ", expected " << want[i];
      return;
    }
  }
}

// x: few distinct values (ties everywhere), with `special` every 13th
// element and all over the first channel of image 0.
template <typename T>
std::vector<T> Inputs(const Shape& s, T special) {
  std::vector<T> x(static_cast<size_t>(s.n * s.h * s.w * s.c));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(static_cast<int64_t>((i * 5 + 2) % 7) - 3);
  for (size_t i = 0; i < x.size(); i += 13) x[i] = special;
  for (int64_t p = 0; p < s.h * s.w; ++p) x[static_cast<size_t>(p * s.c)] = special;
  return x;
}

// Nonzero, not integers, so that a sum in the wrong order would show.
template <typename T>
std::vector<T> Gradient(size_t count, T scale) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = scale * static_cast<T>(static_cast<int64_t>(i % 23) - 11) + T(0.1);
  return v;
}

// Each image's channel sums: the reference's relu_dx summed in double
// (the loops add per window, so only rounding may differ).
template <typename T>
void ExpectChannelSums(const Shape& s, const std::vector<T>& relu_dx, const std::vector<T>& sums) {
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t k = 0; k < s.c; ++k) {
      double sum = 0;
      for (int64_t p = 0; p < s.h * s.w; ++p) sum += static_cast<double>(relu_dx[(b * s.h * s.w + p) * s.c + k]);
      EXPECT_NEAR(static_cast<double>(sums[static_cast<size_t>(b * s.c + k)]), sum, 1e-4 * (1 + std::fabs(sum)))
          << "image " << b << " channel " << k;
    }
  }
}

template <typename T>
void CheckLoops(const loops::LoopSet& set, const Shape& s, T special) {
  const auto [oh, ow, pad_top, pad_left] = test::PoolOutputOf(s);
  nn::Geometry g;
  ASSERT_NO_FATAL_FAILURE(test::PoolGeometryOf(s, &g));

  const std::vector<T> x = Inputs<T>(s, special);
  const std::vector<T> dy = Gradient<T>(static_cast<size_t>(s.n * oh * ow * s.c), T(0.37));
  const std::vector<T> grad = Gradient<T>(x.size(), T(-1.3));
  const Reference<T> want = Plain(s, x, dy, grad, oh, ow, pad_top, pad_left);
  const loops::Loops<T>& run = loops::LoopsFor<T>(set);
  // Stale values in every output, which the loops must overwrite.
  std::vector<T> y(dy.size(), T(77)), dx(x.size(), T(77)), gathered(dy.size(), T(77)), relu_dx(x.size(), T(77));
  // Two slices, as a ParallelFor on two threads would run them.
  run.forward(g, x.data(), y.data(), 0, 1);
  run.forward(g, x.data(), y.data(), 1, s.n * oh);
  run.backward(g, x.data(), dy.data(), dx.data(), 0, s.n);
  std::vector<T> sums(static_cast<size_t>(s.n * s.c), T(77));
  run.backward_relu(g, x.data(), dy.data(), relu_dx.data(), sums.data(), 0, 1);
  run.backward_relu(g, x.data(), dy.data(), relu_dx.data(), sums.data(), 1, s.n);
  run.gather(g, x.data(), grad.data(), gathered.data(), 0, s.n * oh - 1);
  run.gather(g, x.data(), grad.data(), gathered.data(), s.n * oh - 1, s.n * oh);
  ExpectSameBits(y, want.y, "max_pool");
  ExpectSameBits(dx, want.dx, "max_pool_grad");
  ExpectSameBits(gathered, want.gathered, "max_pool_grad_grad");
  ExpectSameBits(relu_dx, want.relu_dx, "max_pool_relu_grad");
  ExpectChannelSums(s, want.relu_dx, sums);
  // The same two from the argmax bytes forward_taps keeps.
  std::vector<T> taps_y(dy.size(), T(77)), taps_dx(x.size(), T(77)), taps_sums(sums.size(), T(77));
  std::vector<uint8_t> codes(dy.size(), 0xff);
  run.forward_taps(g, x.data(), taps_y.data(), codes.data(), 0, 1);
  run.forward_taps(g, x.data(), taps_y.data(), codes.data(), 1, s.n * oh);
  run.backward_relu_taps(g, codes.data(), dy.data(), taps_dx.data(), taps_sums.data(), 0, 1);
  run.backward_relu_taps(g, codes.data(), dy.data(), taps_dx.data(), taps_sums.data(), 1, s.n);
  ExpectSameBits(taps_y, want.y, "max_pool_with_taps");
  ExpectSameBits(taps_dx, want.relu_dx, "max_pool_relu_grad_from_taps");
  ExpectSameBits(taps_sums, sums, "max_pool_relu_grad_from_taps channel sums");
}

std::vector<const loops::LoopSet*> CompiledSets() {
  std::vector<const loops::LoopSet*> sets = {&loops::BaselineLoops()};
  if (loops::Avx512Loops() != nullptr) sets.push_back(loops::Avx512Loops());
  return sets;
}

template <typename T>
void CheckEverySetAndShape() {
  const std::vector<T> specials = {T(-2), std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::infinity(),
                                   -std::numeric_limits<T>::max(), static_cast<T>(-FLT_MAX)};
  for (const loops::LoopSet* set : CompiledSets()) {
    for (const Shape& s : kShapes) {
      for (T special : specials) {
        SCOPED_TRACE(std::string(set->isa) + " " + s.name + " special " + std::to_string(special));
        CheckLoops<T>(*set, s, special);
      }
    }
  }
}

TEST(MaxPoolLoops, EveryCopyMatchesAPlainLoopBitForBitF32) { CheckEverySetAndShape<float>(); }
TEST(MaxPoolLoops, EveryCopyMatchesAPlainLoopBitForBitF64) { CheckEverySetAndShape<double>(); }

// The ops use the AVX-512 copy exactly where the CPU runs it.
TEST(MaxPoolLoops, OpsPickTheWidestCopyTheCpuRuns) {
  const loops::LoopSet* wide = loops::Avx512Loops();
  EXPECT_EQ(&loops::BestMaxPoolLoops(), wide != nullptr ? wide : &loops::BaselineLoops());
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq")) {
    ASSERT_NE(wide, nullptr);
    EXPECT_STREQ(wide->isa, "avx512");
  }
#endif
}

}  // namespace
}  // namespace tfg::max_pool_loops_test
