#include "tests/ops/random/random_test_util.h"

namespace tfg::test {
namespace {

AttrMap Normal(std::vector<int64_t> shape, DType dtype = DType::kF32, double mean = 0, double stddev = 1,
               int64_t seed = 0) {
  return {{"shape", std::move(shape)}, {"mean", mean}, {"stddev", stddev}, {"dtype", dtype}, {"seed", seed}};
}

double FractionWithin(const Tensor& t, double lo, double hi) {
  int64_t n = 0;
  for (double v : ToDoubles(t)) n += (v >= lo && v <= hi);
  return static_cast<double>(n) / static_cast<double>(t.num_elements());
}

TEST(RandomNormalTest, Statistics) {
  for (DType dtype : {DType::kF32, DType::kF64}) {
    auto r = RunRandomFresh("random_normal", Normal({100000}, dtype, 3, 2), {11, "n", 4});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const Moments m = MomentsOf(*r);
    // Standard errors: mean 2/sqrt(1e5) = 0.0063, stddev ~0.0045.
    EXPECT_NEAR(m.mean, 3.0, 0.03) << DTypeName(dtype);
    EXPECT_NEAR(m.stddev, 2.0, 0.02) << DTypeName(dtype);
    // P(|z| <= 1) = erf(1/sqrt(2)) = 0.682689.
    EXPECT_NEAR(FractionWithin(*r, 1, 5), 0.682689, 0.01) << DTypeName(dtype);
  }
  auto h = RunRandomFresh("random_normal", Normal({20000}, DType::kF16), {12, "h"});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->dtype(), DType::kF16);
  EXPECT_NEAR(MomentsOf(*h).stddev, 1.0, 0.03);
}

TEST(RandomNormalTest, SeededRunsReproduceAndAdvance) {
  ResourceMgr rm1, rm2;
  auto a1 = RunRandom("random_normal", Normal({64}), rm1, {5, "w"});
  auto a2 = RunRandom("random_normal", Normal({64}), rm1, {5, "w"});
  auto b1 = RunRandom("random_normal", Normal({64}), rm2, {5, "w"});
  auto b2 = RunRandom("random_normal", Normal({64}), rm2, {5, "w"});
  ASSERT_TRUE(a1.ok() && a2.ok() && b1.ok() && b2.ok());
  EXPECT_EQ(ToDoubles(*a1), ToDoubles(*b1));
  EXPECT_EQ(ToDoubles(*a2), ToDoubles(*b2));
  EXPECT_NE(ToDoubles(*a1), ToDoubles(*a2));
}

TEST(RandomNormalTest, IndependentOfThreadCount) {
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64}) {
    auto one = RunRandomFresh("random_normal", Normal({999}, dtype), {3, "n", 1});
    auto five = RunRandomFresh("random_normal", Normal({999}, dtype), {3, "n", 5});
    ASSERT_TRUE(one.ok() && five.ok());
    EXPECT_EQ(ToDoubles(*one), ToDoubles(*five)) << DTypeName(dtype);
  }
}

TEST(RandomNormalTest, ShapesAndDTypes) {
  EXPECT_EQ(InferShapesString("random_normal", {}, {}, Normal({784, 10})), "[784, 10]");
  EXPECT_FALSE(RunRandomFresh("random_normal", Normal({2}, DType::kI32)).ok());
  auto z = RunRandomFresh("random_normal", Normal({0}), {1});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->num_elements(), 0);
}

}  // namespace
}  // namespace tfg::test
