// Scheduling tests for the executor, through Session::Run. The ops below
// exist only in the test binary; they make ordering, concurrency, failures,
// async completion and slow kernels observable.
#include "interp/runtime/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "interp/runtime/session.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

std::mutex g_log_mu;
std::vector<std::string> g_log;
std::atomic<int> g_active{0};
std::atomic<int> g_max_active{0};

std::vector<std::string> TakeLog() {
  std::lock_guard<std::mutex> lock(g_log_mu);
  std::vector<std::string> out;
  out.swap(g_log);
  return out;
}

// out = a + b (f32, same shape).
class AddKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, a.shape()));
    for (int64_t i = 0; i < a.num_elements(); ++i) out->data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
    return Status::OK();
  }
};

class FailKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return InvalidArgument("boom: bad input"); }
};

// Appends its tag to g_log, forwards its input.
class LogKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    tag_ = *c.attr<std::string>("tag");
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    {
      std::lock_guard<std::mutex> lock(g_log_mu);
      g_log.push_back(tag_);
    }
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }

 private:
  std::string tag_;
};

// Sleeps `ms`, tracking how many sleep kernels overlap; forwards its input.
class SleepKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    ms_ = *c.attr<int64_t>("ms");
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    int now = g_active.fetch_add(1) + 1;
    int seen = g_max_active.load();
    while (now > seen && !g_max_active.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    g_active.fetch_sub(1);
    {
      std::lock_guard<std::mutex> lock(g_log_mu);
      g_log.push_back("sleep");
    }
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }

 private:
  int64_t ms_ = 0;
};

// Completes on another thread: out = x + 1, or fails when fail=true.
class AsyncAddOneKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    fail_ = *c.attr<bool>("fail");
    return Status::OK();
  }
  Status Compute(OpKernelContext&) override { return Internal("synchronous Compute called on an async kernel"); }
  bool IsAsync() const override { return true; }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    bool fail = fail_;
    std::thread([&ctx, done = std::move(done), fail] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (fail) {
        done(FailedPrecondition("async failure"));
        return;
      }
      auto out = ctx.allocate_output(0, ctx.input(0).shape());
      if (!out.ok()) {
        done(out.status());
        return;
      }
      for (int64_t i = 0; i < ctx.input(0).num_elements(); ++i) {
        (*out)->data<float>()[i] = ctx.input(0).data<float>()[i] + 1;
      }
      done(Status::OK());
    }).detach();
  }

 private:
  bool fail_ = false;
};

// Outputs the step id and the graph seed.
class StepKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor::Scalar<int64_t>(ctx.step().step_id));
    ctx.set_output(1, Tensor::Scalar<int64_t>(static_cast<int64_t>(ctx.step().graph_seed)));
    return Status::OK();
  }
};

TFG_REGISTER_OP(OpDefBuilder("test_exec_add").Input("a", "T").Input("b", "T").Output("sum", "T").TypeAttr("T", {DType::kF32, DType::kF64}).SetShapeFn(shape_fns::Unchanged));
TFG_REGISTER_KERNEL(KernelDef("test_exec_add", DeviceType::kCpu).TypeConstraint({DType::kF32}).Create<AddKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_exec_fail").Input("x", "f32").Output("y", "f32"));
TFG_REGISTER_KERNEL(KernelDef("test_exec_fail", DeviceType::kCpu).Create<FailKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_exec_log").Input("x", "T").Attr("tag", AttrType::kString).Output("y", "T").TypeAttr("T", AllTypes()).Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_exec_log", DeviceType::kCpu).Create<LogKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_exec_sleep").Input("x", "f32").Attr("ms", AttrType::kInt).Output("y", "f32").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_exec_sleep", DeviceType::kCpu).Create<SleepKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_exec_async").Input("x", "f32").Attr("fail", AttrType::kBool, false).Output("y", "f32"));
TFG_REGISTER_KERNEL(KernelDef("test_exec_async", DeviceType::kCpu).Create<AsyncAddOneKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_exec_step").Output("step_id", "i64").Output("seed", "i64").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_exec_step", DeviceType::kCpu).Create<StepKernel>());

Node* AddNode(Graph& g, const std::string& op, std::vector<Output> inputs, AttrMap attrs = {},
              std::vector<Node*> control = {}, const std::string& name = "", SourceSpan span = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.control_inputs = std::move(control);
  spec.name = name;
  spec.span = std::move(span);
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

Node* Const(Graph& g, float v, const std::string& name = "") {
  return AddNode(g, "constant", {}, {{"value", Tensor::Scalar<float>(v)}, {"dtype", DType::kF32}}, {}, name);
}

Output Add(Graph& g, Output a, Output b) { return AddNode(g, "test_exec_add", {a, b})->output(0); }
Output Log(Graph& g, Output x, const std::string& tag, std::vector<Node*> control = {}) {
  return AddNode(g, "test_exec_log", {x}, {{"tag", tag}}, std::move(control), tag)->output(0);
}

float Scalar(const Result<std::vector<Tensor>>& r, size_t i = 0) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || r->size() <= i) return NAN;
  return (*r)[i].scalar<float>();
}

TEST(ExecutorTest, ChainOfDependentAdds) {
  Graph g;
  Output one = Const(g, 1)->output(0);
  Output x = one;
  for (int i = 0; i < 100; ++i) x = Add(g, x, one);
  Session s(&g, {});
  EXPECT_EQ(Scalar(s.Run({}, {x}, {})), 101.0f);
}

TEST(ExecutorTest, DataDependenciesOrderExecution) {
  Graph g;
  TakeLog();
  Output c = Const(g, 2)->output(0);
  Output d = Log(g, Log(g, Log(g, c, "a"), "b"), "c");
  Session s(&g, {});
  EXPECT_EQ(Scalar(s.Run({}, {d}, {})), 2.0f);
  EXPECT_EQ(TakeLog(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(ExecutorTest, ControlDependenciesOrderAndPullInNodes) {
  Graph g;
  TakeLog();
  Output c = Const(g, 2)->output(0);
  Output first = Log(g, c, "first");
  Output second = Log(g, c, "second", {first.node});
  Output third = Log(g, c, "third", {second.node});
  Session s(&g, {});
  ASSERT_TRUE(s.Run({}, {third}, {}).ok());
  // `first` and `second` are not fetched, but `third` waits for them.
  EXPECT_EQ(TakeLog(), (std::vector<std::string>{"first", "second", "third"}));
}

TEST(ExecutorTest, TargetsRunForEffectOnly) {
  Graph g;
  TakeLog();
  Output c = Const(g, 2)->output(0);
  Log(g, c, "a");
  Output b = Log(g, c, "b");
  Node* group = AddNode(g, "no_op", {}, {}, {b.node});
  Session s(&g, {});
  auto r = s.Run({}, {}, {group});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(TakeLog(), (std::vector<std::string>{"b"}));
}

TEST(ExecutorTest, ManyIndependentNodesRunConcurrently) {
  Graph g;
  Output zero = Const(g, 0)->output(0);
  std::vector<Output> fetches;
  for (int i = 0; i < 16; ++i) {
    Output slept = AddNode(g, "test_exec_sleep", {zero}, {{"ms", int64_t{5}}})->output(0);
    fetches.push_back(Add(g, slept, Const(g, static_cast<float>(i))->output(0)));
  }
  SessionOptions options;
  options.inter_op_threads = 4;
  Session s(&g, options);
  g_max_active = 0;
  auto r = s.Run({}, fetches, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int i = 0; i < 16; ++i) EXPECT_EQ((*r)[i].scalar<float>(), static_cast<float>(i));
  // Sleeping kernels need no CPU, so the pool overlaps them even on a busy machine.
  EXPECT_GE(g_max_active.load(), 2);
  TakeLog();
}

TEST(ExecutorTest, WideReductionTree) {
  Graph g;
  std::vector<Output> level;
  for (int i = 1; i <= 256; ++i) level.push_back(Const(g, static_cast<float>(i))->output(0));
  while (level.size() > 1) {
    std::vector<Output> next;
    for (size_t i = 0; i < level.size(); i += 2) next.push_back(Add(g, level[i], level[i + 1]));
    level = next;
  }
  SessionOptions options;
  options.inter_op_threads = 3;
  Session s(&g, options);
  for (int run = 0; run < 20; ++run) EXPECT_EQ(Scalar(s.Run({}, {level[0]}, {})), 256.0f * 257.0f / 2.0f);
}

TEST(ExecutorTest, SameOutputFetchedTwiceAndConsumedTwice) {
  Graph g;
  Output c = Const(g, 3)->output(0);
  Output sum = Add(g, c, c);
  Session s(&g, {});
  auto r = s.Run({}, {sum, sum, c}, {});
  EXPECT_EQ(Scalar(r, 0), 6.0f);
  EXPECT_EQ(Scalar(r, 1), 6.0f);
  EXPECT_EQ(Scalar(r, 2), 3.0f);
}

TEST(ExecutorTest, KernelErrorNamesNodeAndCarriesItsSpan) {
  auto file = std::make_shared<SourceFile>("model.tfg", "a = 1\nb = 2\nbad = fail(a)\n");
  SourceSpan span{file, 3, 7, 3, 13};
  Graph g;
  Output c = Const(g, 1)->output(0);
  Node* bad = AddNode(g, "test_exec_fail", {c}, {}, {}, "bad", span);
  Output after = Add(g, bad->output(0), c);
  Session s(&g, {});
  auto r = s.Run({}, {after}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "test_exec_fail 'bad': boom: bad input");
  EXPECT_EQ(r.status().span().line, 3);
  EXPECT_EQ(r.status().span().col, 7);
  EXPECT_EQ(r.status().span().file->path(), "model.tfg");
}

TEST(ExecutorTest, ErrorStopsSchedulingNewNodes) {
  Graph g;
  TakeLog();
  Output c = Const(g, 1)->output(0);
  Output chain = c;
  for (int i = 0; i < 10; ++i) chain = AddNode(g, "test_exec_sleep", {chain}, {{"ms", int64_t{10}}})->output(0);
  Output bad = AddNode(g, "test_exec_fail", {c})->output(0);
  SessionOptions options;
  options.inter_op_threads = 2;
  Session s(&g, options);
  auto r = s.Run({}, {chain, bad}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("boom"), std::string::npos);
  // The failure is seen within the first sleep or two; the rest are skipped.
  EXPECT_LT(TakeLog().size(), 10u);
}

TEST(ExecutorTest, AsyncKernelsCompleteOnOtherThreads) {
  Graph g;
  Output x = Const(g, 1)->output(0);
  for (int i = 0; i < 5; ++i) x = AddNode(g, "test_exec_async", {x})->output(0);
  Output y = Add(g, x, x);
  Session s(&g, {});
  for (int run = 0; run < 3; ++run) EXPECT_EQ(Scalar(s.Run({}, {y}, {})), 12.0f);
}

TEST(ExecutorTest, AsyncKernelErrorIsAnnotated) {
  Graph g;
  Output x = Const(g, 1)->output(0);
  Node* a = AddNode(g, "test_exec_async", {x}, {{"fail", true}}, {}, "reader");
  Session s(&g, {});
  auto r = s.Run({}, {a->output(0)}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(r.status().message(), "test_exec_async 'reader': async failure");
}

TEST(ExecutorTest, DeadlineExceeded) {
  Graph g;
  Output c = Const(g, 1)->output(0);
  Output slow = AddNode(g, "test_exec_sleep", {c}, {{"ms", int64_t{300}}})->output(0);
  Output after = AddNode(g, "test_exec_sleep", {slow}, {{"ms", int64_t{300}}})->output(0);
  Session s(&g, {});
  RunOptions options;
  options.timeout_seconds = 0.05;
  auto start = std::chrono::steady_clock::now();
  auto r = s.Run({}, {after}, {}, options);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kDeadlineExceeded);
  EXPECT_LT(elapsed, 0.25);
  // A step that finishes in time is unaffected by a deadline.
  options.timeout_seconds = 10;
  EXPECT_EQ(Scalar(s.Run({}, {c}, {}, options)), 1.0f);
  TakeLog();
}

TEST(ExecutorTest, MissingKernelForDtypeFailsAtPlanTime) {
  Graph g;
  Node* c = AddNode(g, "constant", {}, {{"value", Tensor::Scalar<double>(1.0)}, {"dtype", DType::kF64}});
  Node* sum = AddNode(g, "test_exec_add", {c->output(0), c->output(0)}, {}, {}, "sum64");
  Session s(&g, {});
  auto r = s.Run({}, {sum->output(0)}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kUnimplemented);
  EXPECT_NE(r.status().message().find("test_exec_add 'sum64'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("cpu"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("f64"), std::string::npos) << r.status().message();
}

TEST(ExecutorTest, FetchingANodeWithoutOutputsIsAnError) {
  Graph g;
  Node* n = AddNode(g, "no_op", {}, {}, {}, "group");
  Session s(&g, {});
  auto r = s.Run({}, {n->output(0)}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no_op 'group'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("no outputs"), std::string::npos) << r.status().message();
  EXPECT_TRUE(s.Run({}, {}, {n}).ok());
}

TEST(ExecutorTest, ControlCycleIsAnError) {
  Graph g;
  Output c = Const(g, 1)->output(0);
  Output a = Log(g, c, "a");
  Output b = Log(g, c, "b", {a.node});
  a.node->AddControlInput(b.node);
  Session s(&g, {});
  auto r = s.Run({}, {b}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cycle"), std::string::npos) << r.status().message();
}

TEST(ExecutorTest, StepIdsIncreaseAndSeedComesFromOptions) {
  Graph g;
  Node* step = AddNode(g, "test_exec_step", {});
  SessionOptions options;
  options.seed = 1234;
  Session s(&g, options);
  auto r1 = s.Run({}, {step->output(0), step->output(1)}, {});
  auto r2 = s.Run({}, {step->output(0)}, {});
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_GT((*r2)[0].scalar<int64_t>(), (*r1)[0].scalar<int64_t>());
  EXPECT_EQ((*r1)[1].scalar<int64_t>(), 1234);
}

}  // namespace
}  // namespace tfg
