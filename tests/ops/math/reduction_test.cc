// The shared reduction helpers: axis resolution and the kernel layouts.
#include "ops/math/reduction.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(ReductionAxes, NoneIntAndLists) {
  const PartialShape s({2, 3, 4});
  EXPECT_EQ(*ReductionAxes("sum", nullptr, s), (std::vector<bool>{true, true, true}));
  const AttrValue none;
  EXPECT_EQ(*ReductionAxes("sum", &none, s), (std::vector<bool>{true, true, true}));
  const AttrValue one(int64_t{-1});
  EXPECT_EQ(*ReductionAxes("sum", &one, s), (std::vector<bool>{false, false, true}));
  const AttrValue list(std::vector<int64_t>{0, -2});
  EXPECT_EQ(*ReductionAxes("sum", &list, s), (std::vector<bool>{true, true, false}));
  const AttrValue bad(std::string("x"));
  EXPECT_EQ(ReductionAxes("prod", &bad, s).status().message(),
            "prod: axis must be none, an int or a list of ints, got \"x\"");
}

TEST(ReductionLayout, CommonCasesAreOuterReduceInner) {
  auto layout = [](TensorShape s, std::vector<bool> r) { return MakeReductionLayout(s, r); };
  ReductionLayout all = layout({2, 3, 4}, {true, true, true});
  EXPECT_TRUE(all.simple);
  EXPECT_EQ(std::make_tuple(all.outer, all.reduce, all.inner), std::make_tuple(1, 24, 1));
  ReductionLayout rows = layout({2, 3, 4}, {false, true, true});
  EXPECT_EQ(std::make_tuple(rows.outer, rows.reduce, rows.inner), std::make_tuple(2, 12, 1));
  ReductionLayout middle = layout({2, 3, 4}, {false, true, false});
  EXPECT_EQ(std::make_tuple(middle.outer, middle.reduce, middle.inner), std::make_tuple(2, 3, 4));
  // Size-1 dims vanish, so [5, 1, 7] over axes {0, 1} is a column reduction.
  ReductionLayout cols = layout({5, 1, 7}, {true, true, false});
  EXPECT_EQ(std::make_tuple(cols.outer, cols.reduce, cols.inner), std::make_tuple(1, 5, 7));
  ReductionLayout split_by_one = layout({3, 1, 4}, {true, false, true});
  EXPECT_TRUE(split_by_one.simple);
  EXPECT_EQ(std::make_tuple(split_by_one.outer, split_by_one.reduce, split_by_one.inner), std::make_tuple(1, 12, 1));
}

TEST(ReductionLayout, SeparatedAxesUseStrides) {
  ReductionLayout l = MakeReductionLayout({3, 2, 4}, {true, false, true});
  EXPECT_FALSE(l.simple);
  EXPECT_EQ(l.kept_dims, std::vector<int64_t>{2});
  EXPECT_EQ(l.kept_strides, std::vector<int64_t>{4});
  EXPECT_EQ(l.red_dims, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(l.red_strides, (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(l.reduce_count, 12);
}

TEST(ReducedDims, DropOrKeep) {
  EXPECT_EQ(ReducedDims({2, 3, 4}, {true, false, true}, false), std::vector<int64_t>{3});
  EXPECT_EQ(ReducedDims({2, 3, 4}, {true, false, true}, true), (std::vector<int64_t>{1, 3, 1}));
}

}  // namespace
}  // namespace tfg
