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

TEST(ReductionPlan, AxesOutputShapeAndLayout) {
  ReductionAttrs ends;
  ends.axis = std::vector<int64_t>{0, -1};
  ends.keepdims = true;
  auto p = PlanReduction("sum", ends, {2, 3, 4});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->reduced, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(p->out, TensorShape({1, 3, 1}));
  EXPECT_FALSE(p->layout.simple);
  EXPECT_EQ(p->layout.reduce_count, 8);

  ReductionAttrs last;
  last.axis = int64_t{-1};
  auto rows = PlanReduction("mean", last, {2, 3, 4});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->out, TensorShape({2, 3}));
  EXPECT_EQ(std::make_tuple(rows->layout.outer, rows->layout.reduce, rows->layout.inner), std::make_tuple(6, 4, 1));

  auto all = PlanReduction("max", ReductionAttrs{}, {2, 3, 4});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->out, TensorShape());
  EXPECT_EQ(all->layout.reduce_count, 24);
}

TEST(ReductionPlan, Errors) {
  ReductionAttrs a;
  a.axis = int64_t{3};
  EXPECT_EQ(PlanReduction("sum", a, {2, 3, 4}).status().message(),
            "sum: axis 3 is out of range for rank 3 (input shape [2, 3, 4])");
  a.axis = std::vector<int64_t>{2, -1};
  EXPECT_EQ(PlanReduction("mean", a, {2, 3, 4}).status().message(),
            "mean: axis -1 is listed more than once (input shape [2, 3, 4])");
}

TEST(ReductionAttrs, AbsentAttrsReduceEverythingWithoutKeepdims) {
  const ReductionAttrs none = ReadReductionAttrs({});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(none.axis));
  EXPECT_FALSE(none.keepdims);
  const ReductionAttrs set = ReadReductionAttrs({{"axis", int64_t{1}}, {"keepdims", true}});
  ASSERT_NE(std::get_if<int64_t>(&set.axis), nullptr);
  EXPECT_EQ(*std::get_if<int64_t>(&set.axis), 1);
  EXPECT_TRUE(set.keepdims);
}

}  // namespace
}  // namespace tfg
