// Memory running out inside a kernel: an allocation beyond --memory-limit,
// or a std::bad_alloc thrown by the kernel (synchronous or asynchronous),
// fails the node at its line with ResourceExhausted, and the session runs
// again afterwards.
#include <gtest/gtest.h>

#include <new>

#include "interp/runtime/executor.h"
#include "interp/runtime/session.h"
#include "ops/core/memory_budget.h"
#include "ops/core/op_registry.h"

namespace tfg::executor_memory_test {
namespace {

// Throws std::bad_alloc when its input is negative, else forwards it.
class ThrowingKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    if (ctx.input(0).scalar<float>() < 0) throw std::bad_alloc();
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
};

// The same, asynchronously: throws before calling `done`.
class ThrowingAsyncKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return Internal("synchronous Compute called on an async kernel"); }
  bool IsAsync() const override { return true; }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    if (ctx.input(0).scalar<float>() < 0) throw std::bad_alloc();
    ctx.set_output(0, ctx.input(0));
    done(Status::OK());
  }
};

// Allocates an f32 output of `n` elements, n being its input.
class FillKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const int64_t n = ctx.input(0).scalar<int64_t>();
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({n})));
    for (int64_t i = 0; i < n; ++i) out->data<float>()[i] = 1;
    return Status::OK();
  }
};

TFG_REGISTER_OP(OpDefBuilder("test_oom_throw").Input("x", "f32").Output("y", "f32").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_oom_throw", DeviceType::kCpu).Create<ThrowingKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_oom_throw_async").Input("x", "f32").Output("y", "f32").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_oom_throw_async", DeviceType::kCpu).Create<ThrowingAsyncKernel>());
TFG_REGISTER_OP(OpDefBuilder("test_oom_fill").Input("n", "i64").Output("y", "f32").Stateful());
TFG_REGISTER_KERNEL(KernelDef("test_oom_fill", DeviceType::kCpu).Create<FillKernel>());

Node* AddOomNode(Graph& g, const std::string& op, Output input, const std::string& name, SourceSpan span = {}) {
  NodeSpec spec;
  spec.op = op;
  spec.inputs = {input};
  spec.name = name;
  spec.span = std::move(span);
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

Node* Placeholder(Graph& g, DType dtype, const std::string& name) {
  NodeSpec spec;
  spec.op = "placeholder";
  spec.name = name;
  spec.attrs = {{"dtype", dtype}, {"shape", PartialShape::Scalar()}};
  auto r = g.AddNode(std::move(spec));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

void ExpectOutOfMemoryAt(const Result<std::vector<Tensor>>& r, const std::string& node_prefix, int line) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(r.status().message().rfind(node_prefix + ": out of memory (the memory limit is ", 0), 0u)
      << r.status().message();
  EXPECT_NE(r.status().message().find("see --memory-limit"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().span().line, line);
}

TEST(ExecutorMemoryTest, BadAllocInAKernelFailsTheNodeAtItsLine) {
  auto file = std::make_shared<SourceFile>("model.tfg", "x = placeholder(f32)\ny = big(x)\n");
  Graph g;
  Node* x = Placeholder(g, DType::kF32, "x");
  Node* y = AddOomNode(g, "test_oom_throw", x->output(0), "big", SourceSpan{file, 2, 5, 2, 11});
  Session s(&g, {});
  ExpectOutOfMemoryAt(s.Run({{x->output(0), Tensor::Scalar<float>(-1)}}, {y->output(0)}, {}), "test_oom_throw 'big'", 2);
  // The session is still usable.
  auto ok = s.Run({{x->output(0), Tensor::Scalar<float>(3)}}, {y->output(0)}, {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].scalar<float>(), 3.0f);
}

TEST(ExecutorMemoryTest, BadAllocInAnAsyncKernelFailsTheNode) {
  auto file = std::make_shared<SourceFile>("model.tfg", "x = placeholder(f32)\n\ny = read(x)\n");
  Graph g;
  Node* x = Placeholder(g, DType::kF32, "x");
  Node* y = AddOomNode(g, "test_oom_throw_async", x->output(0), "reader", SourceSpan{file, 3, 5, 3, 12});
  Session s(&g, {});
  ExpectOutOfMemoryAt(s.Run({{x->output(0), Tensor::Scalar<float>(-1)}}, {y->output(0)}, {}),
                      "test_oom_throw_async 'reader'", 3);
  auto ok = s.Run({{x->output(0), Tensor::Scalar<float>(2)}}, {y->output(0)}, {});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].scalar<float>(), 2.0f);
}

// 1M floats (4 MiB) do not fit a budget of 1 MiB more than is in use; 1000
// do, in the same session, once the failed step is over.
TEST(ExecutorMemoryTest, AllocationBeyondTheMemoryLimitIsResourceExhausted) {
  Graph g;
  Node* n = Placeholder(g, DType::kI64, "n");
  Node* fill = AddOomNode(g, "test_oom_fill", n->output(0), "fill");
  Session s(&g, {});
  SetMemoryLimit(MemoryInUse() + (1 << 20));
  auto big = s.Run({{n->output(0), Tensor::Scalar<int64_t>(1 << 20)}}, {fill->output(0)}, {});
  auto small = s.Run({{n->output(0), Tensor::Scalar<int64_t>(1000)}}, {fill->output(0)}, {});
  SetMemoryLimit(0);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kResourceExhausted);
  EXPECT_EQ(big.status().message().rfind("test_oom_fill 'fill': out of memory allocating f32 [1048576]", 0), 0u)
      << big.status().message();
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ((*small)[0].num_elements(), 1000);
}

}  // namespace
}  // namespace tfg::executor_memory_test
