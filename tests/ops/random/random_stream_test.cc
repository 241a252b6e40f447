#include "ops/random/random_stream.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tfg::random {
namespace {

TEST(RandomStreamTest, KeyDependsOnNodeOnlyWithoutOpSeed) {
  EXPECT_NE(DeriveKey(42, 0, "a"), DeriveKey(42, 0, "b"));
  EXPECT_EQ(DeriveKey(42, 0, "a"), DeriveKey(42, 0, "a"));
  // An op seed replaces the node name (TensorFlow: same seeds, same stream).
  EXPECT_EQ(DeriveKey(42, 7, "a"), DeriveKey(42, 7, "b"));
  EXPECT_NE(DeriveKey(42, 7, "a"), DeriveKey(42, 8, "a"));
  EXPECT_NE(DeriveKey(42, 7, "a"), DeriveKey(43, 7, "a"));
  // Graph seed 0 with an op seed uses TensorFlow's default graph seed.
  EXPECT_EQ(DeriveKey(0, 7, "a"), DeriveKey(87654321, 7, "a"));
}

TEST(RandomStreamTest, BlocksAreIndexedByBlockAndRun) {
  const RandomStream s(DeriveKey(1, 2, ""), 5);
  const uint64_t key = DeriveKey(1, 2, "");
  const PhiloxKey k = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  EXPECT_EQ(s.Block(0x100000003ull), Philox4x32({3, 1, 5, 0}, k));
  EXPECT_NE(s.Block(0), RandomStream(key, 6).Block(0));
}

TEST(RandomStreamTest, UniformsAndBoxMuller) {
  EXPECT_EQ(Uniform01(uint32_t{0}), 0.0f);
  EXPECT_LT(Uniform01(uint32_t{0xffffffff}), 1.0f);
  EXPECT_EQ(Uniform01(uint32_t{0x80000000}), 0.5f);
  EXPECT_LT(Uniform01(~uint64_t{0}), 1.0);
  // u1 = e^-2 gives radius 2; theta = 2*pi*0.125 = pi/4.
  const NormalPair p = BoxMuller(std::exp(-2.0), 0.125);
  EXPECT_NEAR(p.z0, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(p.z1, std::sqrt(2.0), 1e-12);
}

}  // namespace
}  // namespace tfg::random
