// batch_norm and batch_norm_grad in f32 on inputs large enough for the
// kernels' row blocks (several, the last one partial) and far enough from
// zero that sums of squares taken naively would cancel: channel means of
// 50 to 90 with spreads of 1. Expected values from a direct computation in
// double below: the two-pass mean and variance, and the textbook gradient
//   dx = scale/sqrt(v+eps) * (dy - mean(dy) - xhat * mean(dy * xhat))
//        + dbatch_mean / m + dbatch_variance * 2 (x - mean) / (m - 1)
// with xhat = (x - mean)/sqrt(v+eps) — not the kernel's factorization.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/ops/nn/nn_test_util.h"

namespace tfg::batch_norm_blocks_test {
namespace {

constexpr int64_t kRows = 7 * 9 * 11, kChannels = 5;
constexpr double kEpsilon = 0.001;

// Values in [-1, 1) from a fixed linear congruential sequence, rounded to
// f32 (what the kernel sees).
std::vector<double> Values(int64_t count, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(count));
  for (double& x : v) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<float>(static_cast<double>(seed >> 40) / static_cast<double>(1ULL << 23) - 1.0);
  }
  return v;
}

struct Inputs {
  std::vector<double> x, dy, scale, offset, dbm, dbv;
};

Inputs MakeInputs() {
  Inputs in{Values(kRows * kChannels, 1), Values(kRows * kChannels, 2), Values(kChannels, 3), Values(kChannels, 4),
            Values(kChannels, 5), Values(kChannels, 6)};
  for (int64_t i = 0; i < kRows * kChannels; ++i) {
    in.x[i] = static_cast<float>(50.0 + 10.0 * static_cast<double>(i % kChannels) + in.x[i]);
  }
  for (double& s : in.scale) s = static_cast<float>(s + 1.5);
  return in;
}

struct Expected {
  std::vector<double> y, mean, var, unbiased, dx, dscale, doffset;
};

Expected Direct(const Inputs& in) {
  const double m = static_cast<double>(kRows);
  Expected e{std::vector<double>(in.x.size()), std::vector<double>(kChannels, 0.0), std::vector<double>(kChannels, 0.0),
             {}, std::vector<double>(in.x.size()), std::vector<double>(kChannels, 0.0),
             std::vector<double>(kChannels, 0.0)};
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kChannels; ++j) e.mean[j] += in.x[r * kChannels + j] / m;
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kChannels; ++j) e.var[j] += std::pow(in.x[r * kChannels + j] - e.mean[j], 2) / m;
  for (int64_t j = 0; j < kChannels; ++j) e.unbiased.push_back(e.var[j] * m / (m - 1));
  std::vector<double> mean_dy(kChannels, 0.0), mean_dy_xhat(kChannels, 0.0);
  auto xhat = [&](int64_t r, int64_t j) {
    return (in.x[r * kChannels + j] - e.mean[j]) / std::sqrt(e.var[j] + kEpsilon);
  };
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kChannels; ++j) {
      const double dy = in.dy[r * kChannels + j];
      e.y[r * kChannels + j] = xhat(r, j) * in.scale[j] + in.offset[j];
      e.doffset[j] += dy;
      e.dscale[j] += dy * xhat(r, j);
    }
  for (int64_t j = 0; j < kChannels; ++j) {
    mean_dy[j] = e.doffset[j] / m;
    mean_dy_xhat[j] = e.dscale[j] / m;
  }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kChannels; ++j) {
      const int64_t i = r * kChannels + j;
      e.dx[i] = in.scale[j] / std::sqrt(e.var[j] + kEpsilon) * (in.dy[i] - mean_dy[j] - xhat(r, j) * mean_dy_xhat[j]) +
                in.dbm[j] / m + in.dbv[j] * 2.0 * (in.x[i] - e.mean[j]) / (m - 1);
    }
  return e;
}

TEST(BatchNormBlocks, TrainingForwardAndGradientMatchDirectSums) {
  const Inputs in = MakeInputs();
  const Expected e = Direct(in);
  const TensorShape xs({7, 9, 11, kChannels}), cs({kChannels});
  auto f32 = [](const std::vector<double>& v, const TensorShape& s) { return test::MakeTensorOf(DType::kF32, v, s); };
  const Tensor empty = test::MakeTensorOf(DType::kF32, {}, TensorShape({0}));
  const AttrMap attrs = {{"epsilon", kEpsilon}};
  auto fwd = test::RunOp("batch_norm", {f32(in.x, xs), f32(in.scale, cs), f32(in.offset, cs), empty, empty}, attrs);
  ASSERT_TRUE(fwd.ok()) << fwd.status().ToString();
  // y = x * a + b in f32 with |x * a| up to ~300: a few ulps of that.
  test::ExpectTensorNear((*fwd)[0], e.y, xs, 1e-4);
  test::ExpectTensorNear((*fwd)[1], e.mean, cs, 1e-5);
  test::ExpectTensorNear((*fwd)[2], e.unbiased, cs, 1e-5);
  auto grad = test::RunOp("batch_norm_grad",
                          {f32(in.dy, xs), f32(in.x, xs), f32(in.scale, cs), empty, empty, f32(in.dbm, cs),
                           f32(in.dbv, cs)},
                          attrs);
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  test::ExpectTensorNear((*grad)[0], e.dx, xs, 1e-4);
  test::ExpectTensorNear((*grad)[1], e.dscale, cs, 1e-3);  // sums of ~700 f32 terms of size ~1
  test::ExpectTensorNear((*grad)[2], e.doffset, cs, 1e-3);
  test::ExpectTensorNear((*grad)[3], std::vector<double>(kChannels, 0.0), cs, 0.0);
  test::ExpectTensorNear((*grad)[4], std::vector<double>(kChannels, 0.0), cs, 0.0);
}

}  // namespace
}  // namespace tfg::batch_norm_blocks_test
