#include "interp/runtime/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "ops/core/device.h"
#include "ops/core/op_registry.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

Output Const(Graph& g, float v) {
  return AddNode(g, "constant", {}, {{"value", Tensor::Scalar<float>(v)}, {"dtype", DType::kF32}})->output(0);
}
Output Add(Graph& g, Output a, Output b) { return AddNode(g, "add", {a, b})->output(0); }
Output Placeholder(Graph& g, const std::string& name, PartialShape shape, SourceSpan span = {}) {
  return AddNode(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", shape}}, name, span)->output(0);
}

// A scalar f32 variable `name` with its init assign and an increment.
struct Counter {
  Output read;
  Node* init;
  Node* increment;
};
Counter MakeCounter(Graph& g, const std::string& name, float initial) {
  Counter c;
  AttrMap var = {{"dtype", DType::kF32}, {"shape", PartialShape::Scalar()}, {"shared_name", name}};
  c.read = AddNode(g, "variable", {}, var, name)->output(0);
  c.init = AddNode(g, "assign", {Const(g, initial)}, {{"shared_name", name}}, name + "/init");
  c.increment = AddNode(g, "assign_add", {Const(g, 1)}, {{"shared_name", name}}, name + "/inc");
  return c;
}

TEST(SessionTest, FeedReplacesPlaceholder) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({-1}));
  Output y = Add(g, x, x);
  Session s(&g, {});
  auto r = s.Run({{x, Tensor::Vector<float>({1, 2.5f})}}, {y}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)[0].shape(), TensorShape({2}));
  EXPECT_EQ((*r)[0].data<float>()[0], 2.0f);
  EXPECT_EQ((*r)[0].data<float>()[1], 5.0f);
}

TEST(SessionTest, UnfedPlaceholderNamesItselfOnce) {
  auto file = std::make_shared<SourceFile>("m.tfg", "x = placeholder(f32, [?, 784])\n");
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({-1, 784}), SourceSpan{file, 1, 5, 1, 30});
  Output y = Add(g, x, x);
  Session s(&g, {});
  auto r = s.Run({}, {y}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "placeholder 'x' must be fed (declared f32[?, 784])");
  EXPECT_EQ(r.status().span().line, 1);
}

TEST(SessionTest, FeedOfWrongShapeOrDtypeIsRefused) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape({-1, 784}));
  Session s(&g, {});
  Tensor wrong_shape(HostAllocator(), DType::kF32, TensorShape({32, 785}));
  auto r = s.Run({{x, wrong_shape}}, {x}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "feed for placeholder 'x': expected f32[?, 784], got f32[32, 785]");
  Tensor wrong_type(HostAllocator(), DType::kF64, TensorShape({32, 784}));
  r = s.Run({{x, wrong_type}}, {x}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "feed for placeholder 'x': expected f32[?, 784], got f64[32, 784]");
  Tensor rank(HostAllocator(), DType::kF32, TensorShape({784}));
  EXPECT_FALSE(s.Run({{x, rank}}, {x}, {}).ok());
}

TEST(SessionTest, UnusedFeedsAreFineButDuplicatesAreNot) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape::Scalar());
  Output c = Const(g, 4);
  Session s(&g, {});
  auto r = s.Run({{x, Tensor::Scalar<float>(1)}}, {c}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].scalar<float>(), 4.0f);
  r = s.Run({{x, Tensor::Scalar<float>(1)}, {x, Tensor::Scalar<float>(2)}}, {x}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("placeholder 'x' is fed more than once"), std::string::npos)
      << r.status().message();
}

TEST(SessionTest, FetchOfFedOutputReturnsTheFedValue) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape::Unknown());
  Session s(&g, {});
  Tensor v = Tensor::Vector<float>({7, 8});
  auto r = s.Run({{x, v}}, {x}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].data<float>()[1], 8.0f);
  EXPECT_EQ((*r)[0].raw_data(), v.raw_data());  // not copied
}

TEST(SessionTest, FeedReplacesAComputedTensorAndItsProducerDoesNotRun) {
  Graph g;
  Counter c = MakeCounter(g, "n", 5);
  Session s(&g, {});
  ASSERT_TRUE(s.Run({}, {}, {c.init}).ok());
  // The increment's output is fed, so the increment itself must not run.
  Output y = Add(g, c.increment->output(0), Const(g, 1));
  auto r = s.Run({{c.increment->output(0), Tensor::Scalar<float>(100)}}, {y}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].scalar<float>(), 101.0f);
  auto value = s.Run({}, {c.read}, {});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ((*value)[0].scalar<float>(), 5.0f);
}

TEST(SessionTest, PartialExecutionRunsOnlyWhatFetchesNeed) {
  Graph g;
  Counter c = MakeCounter(g, "steps", 0);
  Output unrelated = Add(g, Const(g, 2), Const(g, 3));
  Session s(&g, {});
  ASSERT_TRUE(s.Run({}, {}, {c.init}).ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.Run({}, {unrelated}, {}).ok());
  EXPECT_EQ((*s.Run({}, {c.read}, {}))[0].scalar<float>(), 0.0f);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.Run({}, {}, {c.increment}).ok());
  EXPECT_EQ((*s.Run({}, {c.read}, {}))[0].scalar<float>(), 3.0f);
}

TEST(SessionTest, PlanCacheHitsForRepeatedSignatures) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape::Scalar());
  Output y = Add(g, x, Const(g, 1));
  Output z = Add(g, y, y);
  Session s(&g, {});
  for (int i = 0; i < 5; ++i) {
    auto r = s.Run({{x, Tensor::Scalar<float>(static_cast<float>(i))}}, {y}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].scalar<float>(), i + 1.0f);
  }
  EXPECT_EQ(s.plans_built(), 1);
  ASSERT_TRUE(s.Run({{x, Tensor::Scalar<float>(1)}}, {z}, {}).ok());
  EXPECT_EQ(s.plans_built(), 2);
  // Appending nodes leaves cached plans valid.
  Add(g, z, z);
  ASSERT_TRUE(s.Run({{x, Tensor::Scalar<float>(1)}}, {y}, {}).ok());
  EXPECT_EQ(s.plans_built(), 2);
  // Editing an existing node (a new control input) invalidates them.
  y.node->AddControlInput(AddNode(g, "no_op", {}));
  ASSERT_TRUE(s.Run({{x, Tensor::Scalar<float>(1)}}, {y}, {}).ok());
  EXPECT_EQ(s.plans_built(), 3);
  EXPECT_EQ(s.runs(), 8);
}

TEST(SessionTest, ConcurrentRunsFromTwoHostThreads) {
  Graph g;
  Output x = Placeholder(g, "x", PartialShape::Scalar());
  Output y = x;
  for (int i = 0; i < 50; ++i) y = Add(g, y, Const(g, 1));
  SessionOptions options;
  options.inter_op_threads = 2;
  Session s(&g, options);
  std::atomic<int> wrong{0};
  auto worker = [&](float base) {
    for (int i = 0; i < 200; ++i) {
      auto r = s.Run({{x, Tensor::Scalar<float>(base + i)}}, {y}, {});
      if (!r.ok() || (*r)[0].scalar<float>() != base + i + 50) ++wrong;
    }
  };
  std::thread t1(worker, 0.0f), t2(worker, 1000.0f);
  t1.join();
  t2.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(SessionTest, RunRejectsOutputsOfAnotherGraph) {
  Graph g, other;
  Output x = Const(other, 1);
  Session s(&g, {});
  auto r = s.Run({}, {x}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not in this graph"), std::string::npos);
}

TEST(SessionTest, RunEagerComputesOnTheCallingThread) {
  Graph g;
  Session s(&g, {});
  const OpDef* add = OpRegistry::Global().Find("add");
  ASSERT_NE(add, nullptr);
  auto r = s.RunEager(*add, {}, {Tensor::Vector<float>({1, 2}), Tensor::Scalar<float>(10)}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].data<float>()[0], 11.0f);
  EXPECT_EQ((*r)[0].data<float>()[1], 12.0f);
}

TEST(SessionTest, RunEagerErrorsCarryTheCallSpan) {
  auto file = std::make_shared<SourceFile>("e.tfg", "y = add(a, b)\n");
  SourceSpan span{file, 1, 5, 1, 13};
  Graph g;
  Session s(&g, {});
  const OpDef* add = OpRegistry::Global().Find("add");
  ASSERT_NE(add, nullptr);
  auto r = s.RunEager(*add, {}, {Tensor::Scalar<float>(1), Tensor::Scalar<double>(2)}, span);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 1);
  EXPECT_EQ(r.status().message().rfind("add", 0), 0u) << r.status().message();
  // Inputs of the wrong count are refused, not read out of bounds.
  r = s.RunEager(*add, {}, {Tensor::Scalar<float>(1)}, span);
  ASSERT_FALSE(r.ok());
}

TEST(SessionTest, CpuDeviceIsTheLocalHost) {
  Graph g;
  Session s(&g, {});
  ASSERT_NE(s.cpu_device(), nullptr);
  EXPECT_EQ(s.cpu_device()->name(), "/job:localhost/task:0/device:cpu:0");
  EXPECT_EQ(s.cpu_device()->type(), DeviceType::kCpu);
}

}  // namespace
}  // namespace tfg
