// --check-numerics in the executor and in eager ops, through Session: the
// first op whose float output holds NaN or Inf fails the run, named and
// with its span; later nodes do not run; without the option nothing changes.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "interp/runtime/executor.h"
#include "interp/runtime/session.h"
#include "ops/core/op_registry.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

std::atomic<int> g_counted{0};

// Forwards its input and counts how often it ran.
class CountKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    g_counted.fetch_add(1);
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
};

// Completes on another thread with out = 1 / x (so 0 gives Inf).
class AsyncReciprocalKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return Internal("synchronous Compute called on an async kernel"); }
  bool IsAsync() const override { return true; }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    std::thread([&ctx, done = std::move(done)] {
      auto out = ctx.allocate_output(0, ctx.input(0).shape());
      if (!out.ok()) {
        done(out.status());
        return;
      }
      for (int64_t i = 0; i < ctx.input(0).num_elements(); ++i) {
        (*out)->data<float>()[i] = 1.0f / ctx.input(0).data<float>()[i];
      }
      done(Status::OK());
    }).detach();
  }
};

TFG_REGISTER_OP(OpDefBuilder("test_numerics_count").Input("x", "f32").Output("y", "f32").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_numerics_count", DeviceType::kCpu).Create<CountKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_numerics_async_reciprocal").Input("x", "f32").Output("y", "f32"));
TFG_REGISTER_KERNEL(KernelDef("test_numerics_async_reciprocal", DeviceType::kCpu).Create<AsyncReciprocalKernel>());

using test::AddNode;

Output Const(Graph& g, std::vector<float> values) {
  return AddNode(g, "constant", {}, {{"value", Tensor::Vector<float>(values)}, {"dtype", DType::kF32}})->output(0);
}

SessionOptions Checking(bool on, int threads = 1) {
  SessionOptions o;
  o.check_numerics = on;
  o.inter_op_threads = threads;
  o.intra_op_threads = threads;
  return o;
}

TEST(CheckNumericsTest, OffLetsNaNThrough) {
  Graph g;
  Output y = AddNode(g, "log", {Const(g, {-1, 1})})->output(0);
  Session s(&g, Checking(false));
  auto r = s.Run({}, {y}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(std::isnan((*r)[0].data<float>()[0]));
  EXPECT_EQ((*r)[0].data<float>()[1], 0.0f);
}

TEST(CheckNumericsTest, FirstOpWithNaNFailsNamedAndWithItsSpan) {
  auto file = std::make_shared<SourceFile>("net.tfg", "x = [-1, 1, 0]\nl = log(x)\n");
  Graph g;
  Output x = Const(g, {-1, 1, 0});
  // log(-1) = NaN and log(0) = -Inf; the mul after it would carry both on.
  Node* log = AddNode(g, "log", {x}, {}, "loss/log", SourceSpan{file, 2, 5, 2, 11});
  Output twice = AddNode(g, "mul", {log->output(0), x}, {}, "twice")->output(0);
  Session s(&g, Checking(true));
  auto r = s.Run({}, {twice}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "log 'loss/log' produced NaN and Inf (output 0 has 1 NaN, 1 Inf of 3 values)");
  EXPECT_EQ(r.status().span().line, 2);
  EXPECT_EQ(r.status().span().col, 5);
}

TEST(CheckNumericsTest, InfAloneIsReportedAsInf) {
  Graph g;
  Output y = AddNode(g, "log", {Const(g, {0, 0, 1, 2})}, {}, "l")->output(0);
  Session s(&g, Checking(true));
  auto r = s.Run({}, {y}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "log 'l' produced Inf (output 0 has 0 NaN, 2 Inf of 4 values)");
}

TEST(CheckNumericsTest, NodesAfterTheFailureDoNotRun) {
  Graph g;
  Output bad = AddNode(g, "log", {Const(g, {-1})})->output(0);
  Output counted = AddNode(g, "test_numerics_count", {bad})->output(0);
  Session s(&g, Checking(true));
  g_counted = 0;
  ASSERT_FALSE(s.Run({}, {counted}, {}).ok());
  EXPECT_EQ(g_counted.load(), 0);
}

TEST(CheckNumericsTest, FiniteResultsAreUnchanged) {
  Graph g;
  Output y = AddNode(g, "log", {Const(g, {1, std::exp(2.0f)})})->output(0);
  Session s(&g, Checking(true));
  for (int run = 0; run < 2; ++run) {
    auto r = s.Run({}, {y}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].data<float>()[0], 0.0f);
    EXPECT_NEAR((*r)[0].data<float>()[1], 2.0f, 1e-6);
  }
}

TEST(CheckNumericsTest, AsyncKernelOutputIsChecked) {
  Graph g;
  Output y = AddNode(g, "test_numerics_async_reciprocal", {Const(g, {2, 0})}, {}, "recip")->output(0);
  Session s(&g, Checking(true));
  auto r = s.Run({}, {y}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "test_numerics_async_reciprocal 'recip' produced Inf (output 0 has 0 NaN, 1 Inf of 2 values)");
}

// Two branches go bad at once on two threads: one error, from one of them,
// and the session runs the next step normally.
TEST(CheckNumericsTest, ConcurrentFailuresReportOneNode) {
  Graph g;
  Output neg = Const(g, std::vector<float>(4096, -1));
  Output a = AddNode(g, "log", {neg}, {}, "a")->output(0);
  Output b = AddNode(g, "sqrt", {neg}, {}, "b")->output(0);
  Output good = AddNode(g, "abs", {neg}, {}, "good")->output(0);
  Session s(&g, Checking(true, 2));
  for (int run = 0; run < 20; ++run) {
    auto r = s.Run({}, {a, b}, {});
    ASSERT_FALSE(r.ok());
    const std::string& m = r.status().message();
    bool named_one = m == "log 'a' produced NaN (output 0 has 4096 NaN, 0 Inf of 4096 values)" ||
                     m == "sqrt 'b' produced NaN (output 0 has 4096 NaN, 0 Inf of 4096 values)";
    EXPECT_TRUE(named_one) << m;
  }
  auto ok = s.Run({}, {good}, {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].data<float>()[0], 1.0f);
}

TEST(CheckNumericsTest, EagerOpsAreCheckedToo) {
  Graph g;
  Session s(&g, Checking(true));
  const OpDef* log = OpRegistry::Global().Find("log");
  ASSERT_NE(log, nullptr);
  auto file = std::make_shared<SourceFile>("e.tfg", "log(-1.0)\n");
  auto r = s.RunEager(*log, {}, {Tensor::Vector<float>({-1, 1})}, SourceSpan{file, 1, 1, 1, 10});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "log produced NaN (output 0 has 1 NaN, 0 Inf of 2 values)");
  EXPECT_EQ(r.status().span().line, 1);
}

TEST(CheckNumericsTest, HalfIsReadByItsBits) {
  // f16 bit patterns: 1.0, +Inf, a quiet NaN, -Inf, the largest finite.
  const uint16_t bits[] = {0x3C00, 0x7C00, 0x7E00, 0xFC00, 0x7BFF};
  Tensor t(HostAllocator(), DType::kF16, TensorShape({5}));
  std::memcpy(t.raw_data(), bits, sizeof(bits));
  Status s = CheckNumerics(&t, 1);
  EXPECT_EQ(s.message(), "produced NaN and Inf (output 0 has 1 NaN, 2 Inf of 5 values)");
}

TEST(CheckNumericsTest, OnlyFloatOutputsAreLookedAt) {
  Tensor outs[] = {Tensor::Vector<int32_t>({1, 2}), Tensor::Vector<double>({1.5, -2}),
                   Tensor::Vector<double>({0, NAN})};
  EXPECT_TRUE(CheckNumerics(outs, 2).ok());
  Status s = CheckNumerics(outs, 3);
  EXPECT_EQ(s.message(), "produced NaN (output 2 has 1 NaN, 0 Inf of 2 values)");
}

}  // namespace
}  // namespace tfg
