// Every GPU kernel against the CPU kernel of the same op, on the same
// inputs. Without a GPU each case reports SKIPPED (never passed).
//
// scripts/gpu-check runs this test and formats what it prints: one line per
// case ("GPUCHECK <op> <dtype> match|mismatch|missing kernel|error") and
// one per registered op with no GPU kernel at all.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "ops/core/op_registry.h"
#include "tests/devices/cuda/gpu_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::test {
namespace {

struct GpuCase {
  std::string op;
  DType dtype;
  std::vector<Tensor> inputs;
  AttrMap attrs;
  double tol;
};

// Deterministic values in [-2, 2], away from 0 where an op divides or logs.
Tensor Values(DType dtype, TensorShape shape, double offset = 0, bool positive = false) {
  std::vector<double> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    double x = std::fmod(0.37 * static_cast<double>(i) + offset, 4.0) - 2.0;
    if (positive) x = std::fabs(x) + 0.25;
    if (dtype == DType::kI32 || dtype == DType::kI64) x = std::round(x * 10);
    v[i] = x;
  }
  return MakeTensorOf(dtype, v, std::move(shape));
}

Tensor Ints(DType dtype, std::vector<double> values, TensorShape shape) {
  return MakeTensorOf(dtype, values, std::move(shape));
}

// Gradients of the unary ops, cross-entropies, bias_add.
void AddNnCases(std::vector<GpuCase>& cases) {
  for (DType t : {DType::kF32, DType::kF64}) {
    for (const char* op : {"relu_grad", "sigmoid_grad", "tanh_grad"}) {
      cases.push_back({op, t, {Values(t, {7, 9}), Values(t, {7, 9}, 0.4)}, {}, 1e-6});
    }
    for (const char* op : {"sqrt_grad", "rsqrt_grad"}) {
      cases.push_back({op, t, {Values(t, {7, 9}), Values(t, {7, 9}, 0.4, true)}, {}, 1e-6});
    }
    for (DType labels : {DType::kI32, DType::kI64}) {
      Tensor logits = Values(t, {5, 300});
      Tensor classes = Ints(labels, {3, 0, 299, 17, 100}, {5});
      cases.push_back({"sparse_softmax_cross_entropy", t, {logits, classes}, {}, 1e-5});
      cases.push_back({"sparse_softmax_cross_entropy_grad", t, {logits, classes, Values(t, {5}, 0.6)}, {}, 1e-5});
    }
    cases.push_back({"sparse_softmax_cross_entropy", t, {Values(t, {2, 3, 7}), Ints(DType::kI32, {0, 6, 1, 2, 3, 5}, {2, 3})},
                     {}, 1e-5});
    Tensor logits = Values(t, {5, 300});
    Tensor dist = Values(t, {5, 300}, 0.2, true);
    cases.push_back({"softmax_cross_entropy_with_logits", t, {logits, dist}, {}, 1e-5});
    cases.push_back({"softmax_cross_entropy_grad", t, {logits, dist, Values(t, {5}, 0.6)}, {}, 1e-5});
    cases.push_back({"bias_add_grad", t, {Values(t, {6, 4, 5})}, {}, 1e-6});
  }
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    cases.push_back({"bias_add", t, {Values(t, {6, 4, 5}), Values(t, {5}, 0.3)}, {}, 1e-6});
  }
}

// gather and gather_grad (repeated indices add up), constants.
void AddArrayCases(std::vector<GpuCase>& cases) {
  for (DType t : {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    cases.push_back({"gather", t, {Values(t, {6, 4}), Ints(DType::kI32, {5, 0, 2, 2}, {4})}, {{"axis", int64_t{0}}}, 0});
    cases.push_back({"gather", t, {Values(t, {3, 6, 2}), Ints(DType::kI64, {1, 5, 0, 1, 4, 3}, {2, 3})},
                     {{"axis", int64_t{1}}}, 0});
    cases.push_back({"constant", t, {}, {{"value", Values(t, {3, 4})}, {"dtype", t}}, 0});
  }
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    cases.push_back({"gather_grad", t, {Values(t, {4, 4}), Ints(DType::kI32, {5, 0, 2, 2}, {4}), Values(t, {6, 4})},
                     {{"axis", int64_t{0}}}, 1e-6});
    cases.push_back({"gather_grad", t, {Values(t, {3, 2, 3, 2}), Ints(DType::kI64, {1, 5, 0, 1, 4, 3}, {2, 3}),
                     Values(t, {3, 6, 2})}, {{"axis", int64_t{1}}}, 1e-6});
  }
}

// conv2d (cuDNN, f32), when the build found cuDNN's headers: VALID,
// SAME with symmetric padding (3x3 stride 1), SAME with one more row and
// column after (2x2 stride 2 on 5x5: the input is padded first), strides
// and dilations.
void AddConvCases(std::vector<GpuCase>& cases) {
  if (!HasGpuKernel("conv2d", {DType::kF32, DType::kF32}, {})) return;
  const DType t = DType::kF32;
  auto conv = [&](TensorShape in, TensorShape filter, AttrMap attrs) {
    cases.push_back({"conv2d", t, {Values(t, std::move(in)), Values(t, std::move(filter), 0.3)}, std::move(attrs), 1e-5});
  };
  conv({2, 6, 7, 3}, {3, 3, 3, 4}, {});
  conv({2, 6, 7, 3}, {3, 3, 3, 4}, {{"padding", std::string("SAME")}});
  conv({1, 5, 5, 2}, {2, 2, 2, 3}, {{"padding", std::string("SAME")}, {"strides", std::vector<int64_t>{2, 2}}});
  conv({1, 9, 8, 2}, {3, 2, 2, 5}, {{"strides", std::vector<int64_t>{2, 3}}, {"dilations", std::vector<int64_t>{1, 1}}});
  conv({1, 9, 9, 2}, {3, 3, 2, 2}, {{"padding", std::string("SAME")}, {"dilations", std::vector<int64_t>{2, 2}}});
}

// Pools: VALID, and SAME with one more row and column after than before
// (3x3 windows, stride 2, on 7x6).
void AddPoolCases(std::vector<GpuCase>& cases) {
  for (DType t : {DType::kF32, DType::kF64}) {
    const AttrMap valid = {{"ksize", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}};
    const AttrMap same = {{"ksize", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
                          {"padding", std::string("SAME")}};
    Tensor x = Values(t, {2, 7, 6, 3});
    for (const char* op : {"max_pool", "avg_pool"}) {
      cases.push_back({op, t, {x}, valid, 1e-6});
      cases.push_back({op, t, {x}, same, 1e-6});
    }
    for (const char* op : {"max_pool_grad", "avg_pool_grad"}) {
      cases.push_back({op, t, {x, Values(t, {2, 3, 3, 3}, 0.5)}, valid, 1e-6});
      cases.push_back({op, t, {x, Values(t, {2, 4, 3, 3}, 0.5)}, same, 1e-6});
    }
  }
}

std::vector<GpuCase> Cases() {
  std::vector<GpuCase> cases;
  const DType floats[] = {DType::kF32, DType::kF64};
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    for (const char* op : {"add", "sub", "mul", "maximum", "minimum"}) {
      cases.push_back({op, t, {Values(t, {4, 5}), Values(t, {4, 5}, 1.3)}, {}, 1e-6});
      cases.push_back({op, t, {Values(t, {3, 1, 5}), Values(t, {4, 1}, 0.7)}, {}, 1e-6});  // broadcast both ways
      cases.push_back({op, t, {Values(t, {6}), Values(t, {}, 0.9)}, {}, 1e-6});            // scalar
    }
  }
  for (DType t : floats) {
    cases.push_back({"div", t, {Values(t, {4, 5}), Values(t, {5}, 0.3, true)}, {}, 1e-6});
    cases.push_back({"pow", t, {Values(t, {4, 5}, 0, true), Values(t, {4, 5}, 0.5)}, {}, 1e-5});
    for (const char* op : {"neg", "abs", "square", "relu", "exp", "tanh", "sigmoid", "sin", "cos", "erf", "erfc",
                           "atan", "sinh", "cosh", "tan", "selu"}) {
      cases.push_back({op, t, {Values(t, {7, 9})}, {}, 1e-5});
    }
    for (const char* op : {"log", "sqrt", "rsqrt"}) cases.push_back({op, t, {Values(t, {7, 9}, 0, true)}, {}, 1e-5});
    std::vector<double> unit(63);  // inside asin's and acos's domain, [-1, 1]
    for (size_t i = 0; i < unit.size(); ++i) unit[i] = 0.95 * std::sin(0.37 * static_cast<double>(i));
    for (const char* op : {"asin", "acos"}) cases.push_back({op, t, {MakeTensorOf(t, unit, {7, 9})}, {}, 1e-5});
    cases.push_back({"atan2", t, {Values(t, {4, 5}), Values(t, {5}, 0.3)}, {}, 1e-6});
    for (const char* op : {"sum", "mean", "max", "min"}) {
      cases.push_back({op, t, {Values(t, {6, 700})}, {}, 1e-4});
      cases.push_back({op, t, {Values(t, {6, 70, 3})}, {{"axis", std::vector<int64_t>{1}}}, 1e-4});
      cases.push_back({op, t, {Values(t, {6, 7})}, {{"axis", std::vector<int64_t>{0}}, {"keepdims", true}}, 1e-4});
    }
    for (const char* op : {"softmax", "log_softmax"}) {
      cases.push_back({op, t, {Values(t, {5, 300})}, {}, 1e-5});
      cases.push_back({op, t, {Values(t, {4, 6, 3})}, {{"axis", int64_t{1}}}, 1e-5});
    }
  }
  AddNnCases(cases);
  AddArrayCases(cases);
  AddConvCases(cases);
  AddPoolCases(cases);
  for (DType t : {DType::kF16, DType::kF32, DType::kF64}) {
    double tol = t == DType::kF16 ? 2e-2 : 1e-5;
    cases.push_back({"matmul", t, {Values(t, {8, 16}), Values(t, {16, 4}, 0.5)}, {}, tol});
    cases.push_back({"matmul", t, {Values(t, {3, 8, 16}), Values(t, {3, 4, 16}, 0.5)}, {{"transpose_b", true}}, tol});
    cases.push_back({"matmul", t, {Values(t, {16, 8}), Values(t, {2, 16, 4}, 0.5)}, {{"transpose_a", true}}, tol});
  }
  return cases;
}

enum class Outcome { kMatch, kMismatch, kMissingKernel, kError };

// Compares the GPU's outputs with the CPU's; `detail` says where they differ.
Outcome Check(Device* gpu, const GpuCase& c, std::string* detail) {
  std::vector<DType> types;
  for (const Tensor& t : c.inputs) types.push_back(t.dtype());
  if (!HasGpuKernel(c.op, types, c.attrs)) return Outcome::kMissingKernel;
  Result<std::vector<Tensor>> cpu = RunOp(c.op, c.inputs, c.attrs);
  Result<std::vector<Tensor>> on_gpu = RunOpOnGpu(gpu, c.op, c.inputs, c.attrs);
  if (!cpu.ok() || !on_gpu.ok()) {
    *detail = !cpu.ok() ? "CPU: " + cpu.status().ToString() : "GPU: " + on_gpu.status().ToString();
    return Outcome::kError;
  }
  for (size_t i = 0; i < cpu->size(); ++i) {
    const Tensor &want = (*cpu)[i], &got = (*on_gpu)[i];
    if (want.dtype() != got.dtype() || want.shape() != got.shape()) {
      *detail = "output " + std::to_string(i) + ": " + got.DebugString() + " vs CPU " + want.DebugString();
      return Outcome::kMismatch;
    }
    std::vector<double> w = ToDoubles(want), g = ToDoubles(got);
    for (size_t j = 0; j < w.size(); ++j) {
      bool same = (std::isnan(w[j]) && std::isnan(g[j])) || std::fabs(w[j] - g[j]) <= c.tol * (1 + std::fabs(w[j]));
      if (!same) {
        *detail = "at " + std::to_string(j) + ": GPU " + std::to_string(g[j]) + ", CPU " + std::to_string(w[j]);
        return Outcome::kMismatch;
      }
    }
  }
  return Outcome::kMatch;
}

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kMatch: return "match";
    case Outcome::kMismatch: return "mismatch";
    case Outcome::kMissingKernel: return "missing kernel";
    case Outcome::kError: return "error";
  }
  return "?";
}

// Runs without a GPU too: every case names a registered GPU kernel (a
// renamed op or dtype would otherwise go unnoticed until a GPU machine),
// and the CPU runs it.
TEST(GpuKernelsTest, EveryCaseHasAGpuKernel) {
  for (const GpuCase& c : Cases()) {
    std::vector<DType> types;
    for (const Tensor& t : c.inputs) types.push_back(t.dtype());
    EXPECT_TRUE(HasGpuKernel(c.op, types, c.attrs)) << c.op << " " << DTypeName(c.dtype);
    Result<std::vector<Tensor>> cpu = RunOp(c.op, c.inputs, c.attrs);
    EXPECT_TRUE(cpu.ok()) << c.op << " " << DTypeName(c.dtype) << ": " << cpu.status().ToString();
  }
}

// One test for all cases (not one per case: each ctest test is a process
// start, and CI runs them without a GPU).
TEST(GpuKernelsTest, MatchCpu) {
  Device* gpu = TestGpuDevice();
  if (gpu == nullptr) GTEST_SKIP() << "no CUDA device";
  std::set<std::string> checked;
  int bad = 0;
  for (const GpuCase& c : Cases()) {
    std::string detail;
    Outcome o = Check(gpu, c, &detail);
    bad += o != Outcome::kMatch;
    if (o != Outcome::kMatch) ADD_FAILURE() << c.op << " " << DTypeName(c.dtype) << ": " << OutcomeName(o) << " " << detail;
    std::printf("GPUCHECK %s %s %s %s\n", c.op.c_str(), std::string(DTypeName(c.dtype)).c_str(), OutcomeName(o),
                detail.c_str());
    checked.insert(c.op);
  }
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    if (checked.count(op->name) > 0) continue;
    bool has_gpu = !OpRegistry::Global().KernelsFor(op->name).empty() && [&] {
      for (const KernelDef* k : OpRegistry::Global().KernelsFor(op->name)) {
        if (k->device == DeviceType::kGpu) return true;
      }
      return false;
    }();
    std::printf("GPUCHECK %s * %s\n", op->name.c_str(), has_gpu ? "not checked" : "missing kernel");
  }
  EXPECT_EQ(bad, 0) << "GPU kernels that are missing, differ from the CPU or fail (see the GPUCHECK lines)";
}

}  // namespace
}  // namespace tfg::test
