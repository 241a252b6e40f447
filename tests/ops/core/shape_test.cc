#include "ops/core/shape.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(ShapeTest, BroadcastFollowsNumpy) {
  // Expected shapes from numpy.broadcast_shapes.
  EXPECT_EQ(BroadcastShapes(PartialShape({2, 3}), PartialShape({3}))->ToString(), "[2, 3]");
  EXPECT_EQ(BroadcastShapes(PartialShape({2, 1}), PartialShape({1, 3}))->ToString(), "[2, 3]");
  EXPECT_EQ(BroadcastShapes(PartialShape({4, 1, 3}), PartialShape({2, 1}))->ToString(), "[4, 2, 3]");
  EXPECT_EQ(BroadcastShapes(PartialShape({}), PartialShape({5}))->ToString(), "[5]");
  EXPECT_EQ(BroadcastShapes(PartialShape({0, 3}), PartialShape({1, 3}))->ToString(), "[0, 3]");
}

TEST(ShapeTest, BroadcastWithUnknownDims) {
  EXPECT_EQ(BroadcastShapes(PartialShape({-1, 784}), PartialShape({784}))->ToString(), "[?, 784]");
  EXPECT_EQ(BroadcastShapes(PartialShape({-1}), PartialShape({5}))->ToString(), "[5]");
  EXPECT_EQ(BroadcastShapes(PartialShape({-1}), PartialShape({1}))->ToString(), "[?]");
  EXPECT_FALSE(BroadcastShapes(PartialShape::Unknown(), PartialShape({2})).value().known_rank());
}

TEST(ShapeTest, BroadcastErrorNamesShapes) {
  auto r = BroadcastShapes(PartialShape({2, 3}), PartialShape({4}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "shapes [2, 3] and [4] cannot be broadcast together (dimension 1: 3 vs 4)");
}

TEST(ShapeTest, MergeAndCompatibility) {
  PartialShape a({-1, 3}), b({2, -1});
  EXPECT_TRUE(a.CompatibleWith(b));
  EXPECT_EQ(a.Merge(b)->ToString(), "[2, 3]");
  EXPECT_FALSE(a.CompatibleWith(PartialShape({2, 4})));
  EXPECT_FALSE(a.CompatibleWith(PartialShape({3})));
  EXPECT_TRUE(a.CompatibleWith(PartialShape::Unknown()));
  EXPECT_EQ(PartialShape::Unknown().ToString(), "<unknown>");
  EXPECT_EQ(PartialShape({}).ToString(), "[]");
}

TEST(ShapeTest, NumElements) {
  EXPECT_EQ(TensorShape({2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape({0, 5}).num_elements(), 0);
  EXPECT_EQ(PartialShape({-1, 5}).num_elements(), -1);
}

}  // namespace
}  // namespace tfg
