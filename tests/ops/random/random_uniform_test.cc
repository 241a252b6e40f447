#include <map>

#include "ops/random/random_stream.h"
#include "tests/ops/random/random_test_util.h"

namespace tfg::test {
namespace {

using Ints = std::vector<int64_t>;

AttrMap Uniform(Ints shape, DType dtype = DType::kF32, double lo = 0, double hi = 1, int64_t seed = 0) {
  return {{"shape", std::move(shape)}, {"minval", lo}, {"maxval", hi}, {"dtype", dtype}, {"seed", seed}};
}

bool SameValues(const Tensor& a, const Tensor& b) { return ToDoubles(a) == ToDoubles(b); }

TEST(RandomUniformTest, SameSeedSameNumbersAcrossFreshStates) {
  const RandomRun run{42, "layer/u"};
  ResourceMgr rm1, rm2;
  for (int step = 0; step < 3; ++step) {
    auto a = RunRandom("random_uniform", Uniform({5, 7}), rm1, run);
    auto b = RunRandom("random_uniform", Uniform({5, 7}), rm2, run);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
    EXPECT_TRUE(SameValues(*a, *b)) << "run " << step;
  }
}

TEST(RandomUniformTest, SuccessiveRunsDiffer) {
  ResourceMgr rm;
  auto a = RunRandom("random_uniform", Uniform({100}), rm, {42, "u"});
  auto b = RunRandom("random_uniform", Uniform({100}), rm, {42, "u"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(SameValues(*a, *b));
  // Another node name, or another graph seed, gives another stream.
  auto c = RunRandomFresh("random_uniform", Uniform({100}), {42, "v"});
  auto d = RunRandomFresh("random_uniform", Uniform({100}), {43, "u"});
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_FALSE(SameValues(*a, *c));
  EXPECT_FALSE(SameValues(*a, *d));
}

TEST(RandomUniformTest, OpSeedAloneIsDeterministicAndUnseededIsNot) {
  auto a = RunRandomFresh("random_uniform", Uniform({50}, DType::kF32, 0, 1, 7), {0, "x"});
  auto b = RunRandomFresh("random_uniform", Uniform({50}, DType::kF32, 0, 1, 7), {0, "y"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(SameValues(*a, *b));
  auto c = RunRandomFresh("random_uniform", Uniform({50}), {0, "x"});
  auto d = RunRandomFresh("random_uniform", Uniform({50}), {0, "x"});
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_FALSE(SameValues(*c, *d));
}

TEST(RandomUniformTest, FollowsTheDocumentedStream) {
  // Run 1 of node "n" with graph seed 5: element i is word i%4 of block i/4.
  ResourceMgr rm;
  ASSERT_TRUE(RunRandom("random_uniform", Uniform({6}), rm, {5, "n"}).ok());
  auto r = RunRandom("random_uniform", Uniform({6}), rm, {5, "n"});
  ASSERT_TRUE(r.ok());
  const uint64_t key = random::DeriveKey(5, 0, "n");
  const random::PhiloxKey k = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  for (uint32_t i = 0; i < 6; ++i) {
    const uint32_t w = random::Philox4x32({i / 4, 0, 1, 0}, k)[i % 4];
    EXPECT_EQ(r->data<float>()[i], static_cast<float>(w >> 8) / 16777216.0f) << i;
  }
}

TEST(RandomUniformTest, IndependentOfThreadCount) {
  for (DType dtype : {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kF16}) {
    auto one = RunRandomFresh("random_uniform", Uniform({1001}, dtype, -5, 5), {9, "u", 1});
    auto three = RunRandomFresh("random_uniform", Uniform({1001}, dtype, -5, 5), {9, "u", 3});
    auto seven = RunRandomFresh("random_uniform", Uniform({1001}, dtype, -5, 5), {9, "u", 7});
    ASSERT_TRUE(one.ok() && three.ok() && seven.ok());
    EXPECT_TRUE(SameValues(*one, *three)) << DTypeName(dtype);
    EXPECT_TRUE(SameValues(*one, *seven)) << DTypeName(dtype);
  }
}

TEST(RandomUniformTest, FloatStatistics) {
  // U[0, 1): mean 1/2, stddev sqrt(1/12) = 0.288675.
  for (DType dtype : {DType::kF32, DType::kF64}) {
    auto r = RunRandomFresh("random_uniform", Uniform({100000}, dtype), {1, "u", 4});
    ASSERT_TRUE(r.ok());
    const Moments m = MomentsOf(*r);
    EXPECT_NEAR(m.mean, 0.5, 0.01) << DTypeName(dtype);
    EXPECT_NEAR(m.stddev, 0.288675, 0.005) << DTypeName(dtype);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(m.max, 1.0);
  }
  // U[-3, 5): mean 1, stddev 8/sqrt(12) = 2.309401.
  auto r = RunRandomFresh("random_uniform", Uniform({100000}, DType::kF32, -3, 5), {2, "u", 4});
  ASSERT_TRUE(r.ok());
  const Moments m = MomentsOf(*r);
  EXPECT_NEAR(m.mean, 1.0, 0.05);
  EXPECT_NEAR(m.stddev, 2.309401, 0.03);
  EXPECT_GE(m.min, -3.0);
  EXPECT_LT(m.max, 5.0);
  auto h = RunRandomFresh("random_uniform", Uniform({10000}, DType::kF16), {3, "h"});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->dtype(), DType::kF16);
  const Moments mh = MomentsOf(*h);
  EXPECT_NEAR(mh.mean, 0.5, 0.02);
  EXPECT_LT(mh.max, 1.0);
}

TEST(RandomUniformTest, IntegersCoverTheRangeEvenly) {
  for (DType dtype : {DType::kI32, DType::kI64}) {
    auto r = RunRandomFresh("random_uniform", Uniform({70000}, dtype, -3, 4), {4, "i", 2});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::map<double, int> counts;
    for (double v : ToDoubles(*r)) ++counts[v];
    ASSERT_EQ(counts.size(), 7u) << DTypeName(dtype);
    EXPECT_EQ(counts.begin()->first, -3);
    EXPECT_EQ(counts.rbegin()->first, 3);  // maxval is exclusive
    for (const auto& [value, n] : counts) EXPECT_NEAR(n / 70000.0, 1.0 / 7, 0.01) << value;
  }
}

TEST(RandomUniformTest, ShapesAndErrors) {
  auto empty = RunRandomFresh("random_uniform", Uniform({0, 3}), {1});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
  auto scalar = RunRandomFresh("random_uniform", Uniform({}), {1});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->shape(), TensorShape({}));
  ExpectError(RunRandomFresh("random_uniform", Uniform({2}, DType::kI32, 5, 5)), Code::kInvalidArgument,
              "maxval (5) must be greater than minval (5)");
  ExpectError(RunRandomFresh("random_uniform", Uniform({2}, DType::kI32, 0, 1.5)), Code::kInvalidArgument,
              "must be whole numbers in the range of i32");
  ExpectError(RunRandomFresh("random_uniform", Uniform({2, -1})), Code::kInvalidArgument, "negative dimension");
  EXPECT_EQ(InferShapesString("random_uniform", {}, {}, Uniform({3, 4})), "[3, 4]");
  EXPECT_TRUE(OpRegistry::Global().Find("random_uniform")->stateful);
}

}  // namespace
}  // namespace tfg::test
