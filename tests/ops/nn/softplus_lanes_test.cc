// softplus on f32 (ops/nn/activation_functors.h): its vector lanes against
// a long double evaluation of max(x, 0) + log1p(exp(-|x|)), the formula
// TensorFlow and NumPy (np.logaddexp(0, x)) use; the kernel against the
// same reference; a block and one element at a time give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/nn/activation_functors.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

float Reference(float x) {
  const long double v = x;
  return static_cast<float>(std::max(v, 0.0L) + std::log1p(std::exp(-std::fabs(v))));
}

// Distance in representable floats (both finite or both NaN).
int64_t UlpsApart(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? int64_t{INT32_MIN} - i : int64_t{i};
  };
  return std::llabs(key(a) - key(b));
}

std::vector<float> Sweep() {
  std::vector<float> xs;
  // Dense over where both terms matter, then out to where exp(-|x|)
  // leaves float's range (subnormal results near -88 to -104).
  for (int i = -200000; i <= 200000; ++i) xs.push_back(static_cast<float>(i) * 1e-4f);
  for (int i = -120000; i <= 120000; ++i) xs.push_back(static_cast<float>(i) * 1e-3f);
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, 1e-30f, -1e-30f, 88.0f, -88.0f, -103.0f, -104.0f, -150.0f, 1e30f, -1e30f,
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                  -std::numeric_limits<float>::max()}) {
    xs.push_back(v);
  }
  return xs;
}

TEST(SoftplusLanes, WithinOneUlpOfTheFormulaInLongDouble) {
  const std::vector<float> xs = Sweep();
  std::vector<float> ys(xs.size());
  nn::softplus_detail::SoftplusFloats(xs.data(), ys.data(), static_cast<int64_t>(xs.size()));
  int64_t exact = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t ulps = UlpsApart(ys[i], Reference(xs[i]));
    ASSERT_LE(ulps, 1) << "x = " << xs[i] << ": " << ys[i] << " vs " << Reference(xs[i]);
    exact += ulps == 0;
  }
  // Most round correctly: the double part is far more precise than a float.
  EXPECT_GT(static_cast<double>(exact) / static_cast<double>(xs.size()), 0.85);
}

TEST(SoftplusLanes, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(nn::Softplus::F(inf, 0.0f), inf);
  EXPECT_EQ(nn::Softplus::F(-inf, 0.0f), 0.0f);
  EXPECT_TRUE(std::isnan(nn::Softplus::F(std::numeric_limits<float>::quiet_NaN(), 0.0f)));
  EXPECT_TRUE(std::isnan(nn::Softplus::F(-std::numeric_limits<float>::quiet_NaN(), 0.0f)));
  EXPECT_EQ(nn::Softplus::F(0.0f, 0.0f), 0.693147182f);  // ln 2 rounded to float
  EXPECT_EQ(nn::Softplus::F(-104.0f, 0.0f), 0.0f);       // exp(-104) < half the least subnormal
  EXPECT_EQ(nn::Softplus::F(-103.0f, 0.0f), std::numeric_limits<float>::denorm_min());
}

TEST(SoftplusLanes, ABlockAndOneElementAtATimeAgree) {
  const std::vector<float> xs = Sweep();
  std::vector<float> block(xs.size());
  // Starting one element in, so every element sits in another lane.
  nn::softplus_detail::SoftplusFloats(xs.data() + 1, block.data() + 1, static_cast<int64_t>(xs.size()) - 1);
  for (size_t i = 1; i < xs.size(); ++i) {
    const float one = nn::Softplus::F(xs[i], 0.0f);
    ASSERT_EQ(std::memcmp(&one, &block[i], sizeof one), 0) << "x = " << xs[i];
  }
}

TEST(SoftplusLanes, TheKernelMatchesTheReference) {
  std::vector<double> xs;
  for (int i = 0; i < 9001; ++i) xs.push_back(-45.0 + i * 0.01);
  Tensor y = test::Eval("softplus", {test::MakeTensorOf(DType::kF32, xs, {9001})});
  for (int i = 0; i < 9001; ++i) {
    const float x = static_cast<float>(xs[i]);
    ASSERT_LE(UlpsApart(y.data<float>()[i], Reference(x)), 1) << "x = " << x;
  }
}

}  // namespace
}  // namespace tfg
