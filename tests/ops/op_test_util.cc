#include "tests/ops/op_test_util.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <memory>
#include <thread>

#include "ops/core/device.h"
#include "ops/core/graph.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"

namespace tfg::test {
namespace {

class ThreadedTestDevice final : public Device {
 public:
  ThreadedTestDevice() : Device("/job:localhost/task:0/device:cpu:0", DeviceType::kCpu) {}
  Allocator* allocator() override { return HostAllocator(); }

  // Splits into up to 4 shards on fresh threads once the work is worth it;
  // the threshold is low so tests of moderate size cover sharded paths.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) override {
    if (total <= 0) return;
    const int64_t work = total * std::max<int64_t>(cost_per_unit, 1);
    const int64_t shards = std::min<int64_t>({4, total, work / 4096 + 1});
    if (shards <= 1) {
      fn(0, total);
      return;
    }
    std::vector<std::thread> threads;
    const int64_t block = (total + shards - 1) / shards;
    for (int64_t begin = block; begin < total; begin += block) {
      threads.emplace_back([&fn, begin, block, total] { fn(begin, std::min(total, begin + block)); });
    }
    fn(0, std::min(total, block));
    for (auto& t : threads) t.join();
  }
};

struct Prepared {
  const OpDef* op = nullptr;
  AttrMap attrs;
  Signature sig;
};

Result<Prepared> Prepare(const std::string& name, const std::vector<Tensor>& inputs, AttrMap attrs) {
  Prepared p;
  p.op = OpRegistry::Global().Find(name);
  if (p.op == nullptr) return NotFound("no op named '{}' is registered", name);
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  p.attrs = std::move(attrs);
  TFG_ASSIGN_OR_RETURN(p.sig, ResolveSignature(*p.op, dtypes, p.attrs));
  return p;
}

Status CheckOutputs(const Prepared& p, const std::vector<Tensor>& outputs,
                    const std::vector<PartialShape>* inferred) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.IsInitialized()) return Internal("{}: output {} was not set", p.op->name, i);
    if (t.dtype() != p.sig.output_types[i]) {
      return Internal("{}: output {} has dtype {}, declared {}", p.op->name, i, DTypeName(t.dtype()),
                      DTypeName(p.sig.output_types[i]));
    }
    if (inferred && !(*inferred)[i].IsCompatibleWith(t.shape())) {
      return Internal("{}: output {} has shape {} but the shape function inferred {}", p.op->name, i,
                      t.shape().ToString(), (*inferred)[i].ToString());
    }
  }
  return Status::OK();
}

Result<std::vector<Tensor>> Run(const std::string& name, std::vector<Tensor> inputs, AttrMap attrs,
                                bool shape_check) {
  TFG_ASSIGN_OR_RETURN(Prepared p, Prepare(name, inputs, std::move(attrs)));
  std::vector<PartialShape> inferred;
  if (shape_check) {
    std::vector<PartialShape> shapes;
    std::vector<DType> dtypes;
    for (const Tensor& t : inputs) {
      shapes.emplace_back(t.shape());
      dtypes.push_back(t.dtype());
    }
    TFG_ASSIGN_OR_RETURN(inferred, InferShapes(name, shapes, dtypes, p.attrs));
  }
  TFG_ASSIGN_OR_RETURN(const KernelDef* kdef, OpRegistry::Global().FindKernel(*p.op, DeviceType::kCpu, p.attrs));
  KernelConstruction info;
  info.op = p.op;
  info.attrs = &p.attrs;
  info.input_types = p.sig.input_types;
  info.output_types = p.sig.output_types;
  info.node_name = name;
  info.device = TestCpuDevice();
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, kdef->factory(info));

  std::vector<Tensor> outputs(p.sig.output_types.size());
  ResourceMgr resources;
  StepInfo step;
  OpKernelContext ctx(&info, inputs.data(), static_cast<int>(inputs.size()), outputs.data(),
                      static_cast<int>(outputs.size()), &resources, &step);
  Status status;
  if (kernel->IsAsync()) {
    std::promise<Status> done;
    kernel->ComputeAsync(ctx, [&done](Status s) { done.set_value(std::move(s)); });
    status = done.get_future().get();
  } else {
    status = kernel->Compute(ctx);
  }
  TFG_RETURN_IF_ERROR(status);
  TFG_RETURN_IF_ERROR(CheckOutputs(p, outputs, shape_check ? &inferred : nullptr));
  return outputs;
}

double Magnitude(double x) { return std::isfinite(x) ? std::fabs(x) : 0.0; }

}  // namespace

Device* TestCpuDevice() {
  static ThreadedTestDevice* device = new ThreadedTestDevice();
  return device;
}

Result<std::vector<Tensor>> RunOp(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs) {
  return Run(op, std::move(inputs), std::move(attrs), /*shape_check=*/true);
}

Result<std::vector<Tensor>> RunKernel(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs) {
  return Run(op, std::move(inputs), std::move(attrs), /*shape_check=*/false);
}

Result<Tensor> RunOp1(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs) {
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> outs, RunOp(op, std::move(inputs), std::move(attrs)));
  if (outs.size() != 1) return Internal("{} has {} outputs, expected 1", op, outs.size());
  return outs[0];
}

Tensor Eval(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs) {
  auto r = RunOp1(op, std::move(inputs), std::move(attrs));
  if (!r.ok()) {
    ADD_FAILURE() << op << " failed: " << r.status().ToString();
    return Tensor();
  }
  return *r;
}

Result<std::vector<PartialShape>> InferShapes(const std::string& name, std::vector<PartialShape> shapes,
                                              std::vector<DType> dtypes, AttrMap attrs,
                                              std::vector<const Tensor*> values) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (op == nullptr) return NotFound("no op named '{}' is registered", name);
  TFG_ASSIGN_OR_RETURN(Signature sig, ResolveSignature(*op, dtypes, attrs));
  values.resize(shapes.size(), nullptr);
  const int num_outputs = static_cast<int>(sig.output_types.size());
  if (!op->shape_fn) return std::vector<PartialShape>(num_outputs, PartialShape::Unknown());
  ShapeContext c(op, &attrs, std::move(shapes), sig.input_types, std::move(values), num_outputs);
  TFG_RETURN_IF_ERROR(op->shape_fn(c));
  return c.output_shapes();
}

std::string InferShapesString(const std::string& op, std::vector<PartialShape> shapes, std::vector<DType> dtypes,
                              AttrMap attrs) {
  auto r = InferShapes(op, std::move(shapes), std::move(dtypes), std::move(attrs));
  if (!r.ok()) return r.status().message();
  std::string out;
  for (size_t i = 0; i < r->size(); ++i) out += (i ? ";" : "") + (*r)[i].ToString();
  return out;
}

Tensor MakeTensorOf(DType dtype, const std::vector<double>& values, TensorShape shape) {
  Tensor t(HostAllocator(), dtype, std::move(shape));
  const int64_t n = std::min<int64_t>(t.num_elements(), static_cast<int64_t>(values.size()));
  bool ok = TFG_DISPATCH_NUMBER(dtype, T, {
    for (int64_t i = 0; i < n; ++i) t.data<T>()[i] = static_cast<T>(values[i]);
  });
  if (!ok && dtype == DType::kBool) {
    for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = values[i] != 0;
  }
  return t;
}

Tensor MakeHalf(const std::vector<float>& values, TensorShape shape) {
  std::vector<half> h(values.begin(), values.end());
  return Tensor::FromVector<half>(h, std::move(shape));
}

Tensor MakeStrings(const std::vector<std::string>& values, TensorShape shape) {
  return Tensor::FromVector<std::string>(values, std::move(shape));
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.num_elements()));
  bool ok = TFG_DISPATCH_NUMBER(t.dtype(), T, {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(t.data<T>()[i]);
  });
  if (!ok && t.dtype() == DType::kBool) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data<bool>()[i] ? 1.0 : 0.0;
  }
  return out;
}

void ExpectTensorNear(const Tensor& actual, const std::vector<double>& expected, const TensorShape& shape,
                      double tol) {
  ASSERT_TRUE(actual.IsInitialized()) << "output not initialized";
  ASSERT_EQ(actual.shape(), shape) << actual.DebugString();
  ASSERT_EQ(static_cast<size_t>(actual.num_elements()), expected.size()) << actual.DebugString();
  std::vector<double> got = ToDoubles(actual);
  for (size_t i = 0; i < expected.size(); ++i) {
    const double e = expected[i], g = got[i];
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(g)) << "at flat index " << i << ": got " << g << ", expected nan";
    } else if (std::isinf(e)) {
      EXPECT_EQ(g, e) << "at flat index " << i;
    } else {
      EXPECT_NEAR(g, e, tol * (1.0 + Magnitude(e))) << "at flat index " << i << " of " << actual.DebugString();
    }
  }
}

}  // namespace tfg::test
