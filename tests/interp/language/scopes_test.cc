#include "interp/language/scopes.h"

#include <gtest/gtest.h>

namespace tfg {
namespace {

TEST(DeviceSpecTest, ParsesFullAndPartialNames) {
  auto full = DeviceSpec::Parse("/job:worker/replica:0/task:1/device:cpu:0");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->ToString(), "/job:worker/replica:0/task:1/device:cpu:0");
  auto partial = DeviceSpec::Parse("/job:ps");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->ToString(), "/job:ps");
  auto legacy = DeviceSpec::Parse("/cpu:1");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->ToString(), "/device:cpu:1");
  auto any = DeviceSpec::Parse("/device:GPU:*");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->ToString(), "/device:gpu:*");
  EXPECT_TRUE(DeviceSpec::Parse("")->empty());
}

TEST(DeviceSpecTest, RejectsMalformedNames) {
  for (const char* bad : {"/job:", "/task:x", "/device:tpu:0", "/banana:1", "/job:w//task:1", "/device:cpu:0:1"}) {
    auto s = DeviceSpec::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find(bad), std::string::npos) << s.status().message();
    }
  }
}

TEST(DeviceSpecTest, InnerFieldsOverride) {
  DeviceSpec outer = *DeviceSpec::Parse("/job:worker/task:1/device:cpu:0");
  outer.MergeFrom(*DeviceSpec::Parse("/task:2"));
  EXPECT_EQ(outer.ToString(), "/job:worker/task:2/device:cpu:0");
  outer.MergeFrom(*DeviceSpec::Parse("/device:gpu:1"));
  EXPECT_EQ(outer.ToString(), "/job:worker/task:2/device:gpu:1");
}

TEST(ScopeStackTest, PushAndPop) {
  ScopeStack s;
  EXPECT_EQ(s.ScopedName("x"), "x");
  s.PushScope("a");
  s.PushScope("b");
  EXPECT_EQ(s.ScopedName("x"), "a/b/x");
  s.PushDevice(*DeviceSpec::Parse("/job:ps/task:0"), false);
  s.PushDevice(*DeviceSpec::Parse("/device:cpu:0"), false);
  EXPECT_EQ(s.device(), "/job:ps/task:0/device:cpu:0");
  s.PushContainer("c1");
  EXPECT_EQ(s.container(), "c1");
  s.Pop();
  s.Pop();
  s.Pop();
  EXPECT_EQ(s.device(), "");
  EXPECT_EQ(s.container(), "");
  s.Pop();
  EXPECT_EQ(s.ScopedName("x"), "a/x");
  s.Pop();
  s.Pop();  // popping the base state does nothing
  EXPECT_EQ(s.ScopedName("x"), "x");
}

TEST(ScopeStackTest, AbsoluteScopeReplacesThePrefix) {
  ScopeStack s;
  s.PushScope("Adam");
  s.PushScope("update_dense/kernel");
  s.PushScope("dense/kernel/");  // ends in '/': absolute, as TensorFlow's name_scope
  EXPECT_EQ(s.ScopedName("adam_m"), "dense/kernel/adam_m");
  s.Pop();
  EXPECT_EQ(s.ScopedName("apply_adam"), "Adam/update_dense/kernel/apply_adam");
}

TEST(ScopeStackTest, UniqueScopeSkipsTakenNames) {
  Graph g;
  NodeSpec spec;
  spec.op = "no_op";
  spec.name = "conv/kernel";  // a node inside scope "conv"
  ASSERT_TRUE(g.AddNode(spec).ok());
  spec.name = "pool";  // a node named like the scope
  ASSERT_TRUE(g.AddNode(spec).ok());
  ScopeStack s;
  EXPECT_EQ(s.UniqueScope(g, "dense"), "dense");
  EXPECT_EQ(s.UniqueScope(g, "dense"), "dense_1");  // reserved even before it holds nodes
  EXPECT_EQ(s.UniqueScope(g, "dense"), "dense_2");
  EXPECT_EQ(s.UniqueScope(g, "conv"), "conv_1");
  EXPECT_EQ(s.UniqueScope(g, "pool"), "pool_1");
  EXPECT_EQ(s.UniqueScope(g, "con"), "con");  // a prefix of a name is no clash
  s.PushScope("block");
  EXPECT_EQ(s.UniqueScope(g, "dense"), "dense");  // block/dense is free
}

TEST(ScopeStackTest, DepsAccumulateWithoutDuplicates) {
  ScopeStack s;
  Node* a = reinterpret_cast<Node*>(0x10);  // only compared, never dereferenced
  Node* b = reinterpret_cast<Node*>(0x20);
  s.PushDeps({a});
  s.PushDeps({a, b});
  EXPECT_EQ(s.control_deps().size(), 2u);
  s.Pop();
  EXPECT_EQ(s.control_deps().size(), 1u);
}

TEST(ScopeGuardTest, RestoresOnExit) {
  ScopeStack s;
  s.PushScope("outer");
  {
    s.PushScope("inner");
    ScopeGuard g(s);
    EXPECT_EQ(s.ScopedName("x"), "outer/inner/x");
  }
  EXPECT_EQ(s.ScopedName("x"), "outer/x");
}

TEST(CheckScopeNameTest, Validates) {
  EXPECT_TRUE(CheckScopeName("layer_1/block-2.a").ok());
  EXPECT_FALSE(CheckScopeName("a//b").ok());
  EXPECT_FALSE(CheckScopeName("a b").ok());
  EXPECT_FALSE(CheckScopeName("x:0").ok());
  EXPECT_TRUE(CheckScopeName("dense/kernel/").ok());  // absolute
  EXPECT_FALSE(CheckScopeName("/").ok());
  EXPECT_FALSE(CheckScopeName("a//").ok());
}

}  // namespace
}  // namespace tfg
