// Values nested far deeper than any stack: freeing, comparing and walking
// them must neither overflow the stack nor stop at a silent depth limit.
#include <gtest/gtest.h>

#include <memory>

#include "interp/language/value.h"
#include "interp/language/value_arith.h"
#include "interp/language/value_convert.h"
#include "interp/language/value_walk.h"

namespace tfg {
namespace {

constexpr int kDeep = 150000;  // recursion over this many levels overflowed the stack

// [[[...[leaf]...]]], `depth` lists around `leaf`.
Value NestedList(int depth, Value leaf) {
  Value v = Value::NewList({std::move(leaf)});
  for (int i = 1; i < depth; ++i) v = Value::NewList({v});
  return v;
}

TEST(ValueDeepTest, DeepListsDictsAndClosuresAreFreed) {
  { Value list = NestedList(kDeep, Value::Int(1)); }
  {
    Value dict = Value::NewDict();
    for (int i = 0; i < kDeep; ++i) {
      Value outer = Value::NewDict();
      ASSERT_TRUE(outer.as_dict().Set(Value::Str("k"), dict).ok());
      dict = outer;
    }
  }
  {
    // Each function's default is the last function; each scope it
    // captured holds the function before too.
    Value fn = Value::None();
    for (int i = 0; i < kDeep; ++i) {
      auto f = std::make_shared<Function>();
      f->closure = std::make_shared<Env>();
      f->closure->vars["prev"] = fn;
      f->defaults.push_back(fn);
      fn = Value::Fn(f);
    }
  }
  SUCCEED();  // reaching here is the test: the stack did not overflow
}

TEST(ValueDeepTest, SharedInnerListOutlivesTheOuterOne) {
  Value inner = Value::NewList({Value::Int(7)});
  { Value outer = NestedList(1000, inner); }
  ASSERT_EQ(inner.as_list().items.size(), 1u);
  EXPECT_EQ(inner.as_list().items[0].as_int(), 7);
}

TEST(ValueDeepTest, EqualityHasNoDepthLimit) {
  EXPECT_TRUE(HostEquals(NestedList(kDeep, Value::Int(1)), NestedList(kDeep, Value::Float(1.0))));
  EXPECT_FALSE(HostEquals(NestedList(kDeep, Value::Int(1)), NestedList(kDeep, Value::Int(2))));
  EXPECT_FALSE(HostEquals(NestedList(kDeep, Value::Int(1)), NestedList(kDeep - 1, Value::Int(1))));
}

TEST(ValueDeepTest, ListsHoldingThemselvesCompareEqual) {
  Value a = Value::NewList({Value::Int(1)});
  a.as_list().items.push_back(a);
  Value b = Value::NewList({Value::Int(1)});
  b.as_list().items.push_back(b);
  EXPECT_TRUE(HostEquals(a, b));
  b.as_list().items[0] = Value::Int(2);
  EXPECT_FALSE(HostEquals(a, b));
  a.as_list().items.clear();  // break the cycles so the lists are freed
  b.as_list().items.clear();
}

TEST(ValueDeepTest, WalksSeeTheBottomOfADeepNest) {
  Value deep = NestedList(kDeep, Value::Str("x"));
  EXPECT_TRUE(IsHostData(deep));
  EXPECT_FALSE(ContainsGraph(deep));
  int values = 0;
  NestedWalk walk(deep, /*dict_values=*/false);
  while (walk.Next()) ++values;
  EXPECT_EQ(values, kDeep + 1);  // every list, then the string
  EXPECT_FALSE(IsHostData(NestedList(kDeep, Value::None())));
  Value cycle = Value::NewList({Value::Int(1)});
  cycle.as_list().items.push_back(cycle);
  EXPECT_FALSE(IsHostData(cycle));  // a list inside itself is no tensor literal
  cycle.as_list().items.clear();
}

}  // namespace
}  // namespace tfg
