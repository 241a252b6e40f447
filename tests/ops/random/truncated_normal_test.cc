#include "tests/ops/random/random_test_util.h"

namespace tfg::test {
namespace {

AttrMap Truncated(std::vector<int64_t> shape, DType dtype = DType::kF32, double mean = 0, double stddev = 1) {
  return {{"shape", std::move(shape)}, {"mean", mean}, {"stddev", stddev}, {"dtype", dtype}, {"seed", int64_t{0}}};
}

TEST(TruncatedNormalTest, WithinTwoStddevsWithTheTruncatedMoments) {
  // N(0, 1) truncated to (-2, 2) has stddev 0.879626 (from the closed form
  // sqrt(1 - 2*2*phi(2) / (2*Phi(2) - 1))).
  for (DType dtype : {DType::kF32, DType::kF64}) {
    auto r = RunRandomFresh("truncated_normal", Truncated({100000}, dtype, -1, 0.5), {21, "t", 4});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Moments m = MomentsOf(*r);
    EXPECT_GT(m.min, -2.0);
    EXPECT_LT(m.max, 0.0);
    EXPECT_NEAR(m.mean, -1.0, 0.01) << DTypeName(dtype);
    EXPECT_NEAR(m.stddev, 0.5 * 0.879626, 0.005) << DTypeName(dtype);
  }
  auto h = RunRandomFresh("truncated_normal", Truncated({5000}, DType::kF16), {22, "h"});
  ASSERT_TRUE(h.ok());
  const Moments mh = MomentsOf(*h);
  EXPECT_GE(mh.min, -2.0);
  EXPECT_LE(mh.max, 2.0);
}

TEST(TruncatedNormalTest, ReproducibleAndIndependentOfThreadCount) {
  auto one = RunRandomFresh("truncated_normal", Truncated({2049}), {3, "t", 1});
  auto six = RunRandomFresh("truncated_normal", Truncated({2049}), {3, "t", 6});
  ASSERT_TRUE(one.ok() && six.ok());
  EXPECT_EQ(ToDoubles(*one), ToDoubles(*six));
  ResourceMgr rm;
  auto a = RunRandom("truncated_normal", Truncated({16}), rm, {3, "t"});
  auto b = RunRandom("truncated_normal", Truncated({16}), rm, {3, "t"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(ToDoubles(*a), ToDoubles(*b));
}

}  // namespace
}  // namespace tfg::test
