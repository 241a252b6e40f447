// The per-step stores behind while_loop gradients (ops/control/value_stack.h)
// and the step containers they live in (ResourceMgr::StepContainer).
#include <gtest/gtest.h>

#include "ops/control/value_stack.h"

namespace tfg {
namespace {

TEST(ValueStack, PopsByIterationIndexInAnyOrder) {
  ValueStack s;
  for (int64_t i = 0; i < 3; ++i) ASSERT_TRUE(s.Push({i}, Tensor::Scalar<float>(10.0f * i)).ok());
  for (int64_t i : {2, 0, 1}) {
    auto t = s.Pop({i});
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->scalar<float>(), 10.0f * i);
  }
}

TEST(ValueStack, APopTakesTheValueAway) {
  ValueStack s;
  ASSERT_TRUE(s.Push({4}, Tensor::Scalar<float>(1.0f)).ok());
  ASSERT_TRUE(s.Pop({4}).ok());
  auto again = s.Pop({4});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("no value was saved for iteration 4"), std::string::npos);
}

// Iteration 0 of an inner loop runs once per outer iteration: each is kept.
TEST(ValueStack, KeysOfNestedLoopsAreDistinct) {
  ValueStack s;
  ASSERT_TRUE(s.Push({0, 0}, Tensor::Scalar<float>(1.0f)).ok());
  ASSERT_TRUE(s.Push({1, 0}, Tensor::Scalar<float>(2.0f)).ok());
  auto second = s.Pop({1, 0});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->scalar<float>(), 2.0f);
  EXPECT_FALSE(s.Pop({0}).ok());
  EXPECT_TRUE(s.Pop({0, 0}).ok());
}

TEST(ValueStack, ASecondPushForOneIterationIsAnError) {
  ValueStack s;
  ASSERT_TRUE(s.Push({0}, Tensor::Scalar<float>(1.0f)).ok());
  EXPECT_FALSE(s.Push({0}, Tensor::Scalar<float>(2.0f)).ok());
}

TEST(StepContainers, DroppingAStepLeavesOtherStepsAndContainers) {
  ResourceMgr mgr;
  std::function<std::shared_ptr<ValueStack>()> make = [] { return std::make_shared<ValueStack>(); };
  const std::string step1 = mgr.StepContainer(1, "a");
  const std::string step12 = mgr.StepContainer(12, "a");
  ASSERT_TRUE(mgr.LookupOrCreate<ValueStack>(step1, "stack", make).ok());
  ASSERT_TRUE(mgr.LookupOrCreate<ValueStack>(mgr.StepContainer(1, "b"), "stack", make).ok());
  ASSERT_TRUE(mgr.LookupOrCreate<ValueStack>(step12, "stack", make).ok());
  ASSERT_TRUE(mgr.LookupOrCreate<ValueStack>("", "kept", make).ok());
  mgr.DropStepContainers(1);
  EXPECT_EQ(mgr.Lookup<ValueStack>(step1, "stack"), nullptr);
  EXPECT_EQ(mgr.Lookup<ValueStack>(mgr.StepContainer(1, "b"), "stack"), nullptr);
  EXPECT_NE(mgr.Lookup<ValueStack>(step12, "stack"), nullptr);
  EXPECT_NE(mgr.Lookup<ValueStack>("", "kept"), nullptr);
}

}  // namespace
}  // namespace tfg
