// Operands a kernel must refuse, given to the GPU kernel and to the CPU
// kernel of the same op: both share their checks (ops/math/matmul.h,
// reduction.h, softmax.h, cwise_common.h; ops/nn/conv2d.h, pool.h,
// bias_add.h, cross_entropy.h; ops/array/gather.h), so both fail with the
// same code and message. Without a GPU the comparison is SKIPPED; that each
// case has a GPU kernel and fails on the CPU is checked everywhere.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/devices/cuda/gpu_test_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg::test {
namespace {

struct BadCase {
  std::string op;
  std::vector<Tensor> inputs;
  AttrMap attrs;
};

Tensor F32(TensorShape shape) {
  return MakeTensorOf(DType::kF32, std::vector<double>(shape.num_elements(), 0.5), shape);
}

AttrMap Pool(const char* padding) {
  return {{"ksize", std::vector<int64_t>{3, 3}},
          {"strides", std::vector<int64_t>{2, 2}},
          {"padding", std::string(padding)}};
}

void AddMathCases(std::vector<BadCase>& cases) {
  cases.push_back({"matmul", {F32({2, 3}), F32({4, 5})}, {}});
  cases.push_back({"matmul", {F32({3, 2}), F32({3, 4})}, {{"transpose_a", true}, {"transpose_b", true}}});
  cases.push_back({"matmul", {F32({3}), F32({3, 4})}, {}});
  cases.push_back({"matmul", {F32({2, 2, 3}), F32({4, 3, 7})}, {}});
  cases.push_back({"sum", {F32({2, 3, 4})}, {{"axis", std::vector<int64_t>{3}}}});
  cases.push_back({"mean", {F32({2, 3, 4})}, {{"axis", std::vector<int64_t>{2, -1}}}});
  cases.push_back({"max", {F32({2, 3})}, {{"axis", std::vector<int64_t>{2}}}});
  cases.push_back({"softmax", {F32({2, 3})}, {{"axis", int64_t{2}}}});
  cases.push_back({"log_softmax", {F32({})}, {}});
  cases.push_back({"add", {F32({2}), F32({3})}, {}});
}

void AddNnCases(std::vector<BadCase>& cases) {
  cases.push_back({"bias_add", {F32({6, 4, 5}), F32({4})}, {}});
  cases.push_back({"bias_add_grad", {F32({})}, {}});
  cases.push_back({"softmax_cross_entropy_with_logits", {F32({2, 3, 5}), F32({2, 3, 4})}, {}});
  cases.push_back({"softmax_cross_entropy_grad", {F32({2, 3, 5}), F32({2, 3, 5}), F32({6})}, {}});
  Tensor labels = MakeTensorOf(DType::kI32, std::vector<double>(6, 1), {2, 3});
  cases.push_back({"sparse_softmax_cross_entropy", {F32({2, 3, 5}), MakeTensorOf(DType::kI32, {1, 2}, {2})}, {}});
  cases.push_back({"sparse_softmax_cross_entropy_grad", {F32({2, 3, 5}), labels, F32({6})}, {}});
  cases.push_back({"max_pool", {F32({7, 6, 3})}, Pool("SAME")});
  cases.push_back({"max_pool_grad", {F32({2, 7, 6, 3}), F32({2, 3, 3, 3})}, Pool("SAME")});
  cases.push_back({"avg_pool_grad", {F32({2, 7, 6, 3}), F32({2, 4, 3, 3})}, Pool("VALID")});
  cases.push_back({"avg_pool", {F32({2, 2, 6, 3})}, Pool("VALID")});
}

void AddConvCases(std::vector<BadCase>& cases) {
  if (!HasGpuKernel("conv2d", {DType::kF32, DType::kF32}, {})) return;  // built without cuDNN's headers
  cases.push_back({"conv2d", {F32({1, 5, 5, 3}), F32({2, 2, 2, 3})}, {}});
  cases.push_back({"conv2d", {F32({1, 5, 5, 3}), F32({2, 2})}, {}});
  cases.push_back({"conv2d", {F32({1, 4, 8, 3}), F32({5, 3, 3, 2})}, {}});
}

void AddArrayCases(std::vector<BadCase>& cases) {
  Tensor indices = MakeTensorOf(DType::kI32, {0, 1}, {2});
  cases.push_back({"gather", {F32({3, 6, 2}), indices}, {{"axis", int64_t{3}}}});
  cases.push_back({"gather_grad", {F32({2}), indices, F32({3, 6, 2})}, {{"axis", int64_t{-4}}}});
  cases.push_back({"gather_grad", {F32({3, 6, 2}), indices, F32({3, 6, 2})}, {{"axis", int64_t{1}}}});
}

std::vector<BadCase> Cases() {
  std::vector<BadCase> cases;
  AddMathCases(cases);
  AddNnCases(cases);
  AddConvCases(cases);
  AddArrayCases(cases);
  return cases;
}

std::vector<DType> Types(const BadCase& c) {
  std::vector<DType> types;
  for (const Tensor& t : c.inputs) types.push_back(t.dtype());
  return types;
}

TEST(GpuKernelErrorsTest, EveryCaseHasAGpuKernelAndFailsOnTheCpu) {
  for (const BadCase& c : Cases()) {
    EXPECT_TRUE(HasGpuKernel(c.op, Types(c), c.attrs)) << c.op;
    EXPECT_FALSE(RunKernel(c.op, c.inputs, c.attrs).ok()) << c.op;
  }
}

TEST(GpuKernelErrorsTest, GpuFailsAsTheCpuDoes) {
  Device* gpu = TestGpuDevice();
  if (gpu == nullptr) GTEST_SKIP() << "no CUDA device";
  for (const BadCase& c : Cases()) {
    Result<std::vector<Tensor>> cpu = RunKernel(c.op, c.inputs, c.attrs);
    Result<std::vector<Tensor>> on_gpu = RunOpOnGpu(gpu, c.op, c.inputs, c.attrs);
    ASSERT_FALSE(cpu.ok()) << c.op;
    ASSERT_FALSE(on_gpu.ok()) << c.op << ": the GPU accepted what the CPU refuses: " << cpu.status().ToString();
    EXPECT_EQ(on_gpu.status().code(), cpu.status().code()) << c.op << ": " << on_gpu.status().ToString();
    EXPECT_EQ(on_gpu.status().message(), cpu.status().message()) << c.op;
  }
}

}  // namespace
}  // namespace tfg::test
