// The CUDA source of fused GPU kernels (ops/math/fused/fused_cuda_source.h):
// every op it claims has a GPU kernel of its own at each dtype it claims,
// and a kernel of every op at every dtype compiles with NVRTC for the
// architectures tfg's own CUDA code is built for. NVRTC needs no GPU; a
// machine without it (or a build without CUDA) skips the compiles.
#include "ops/math/fused/fused_cuda_source.h"

#include <gtest/gtest.h>

#include "devices/cuda/nvrtc_library.h"
#include "ops/core/op_registry.h"

namespace tfg::fused {
namespace {

std::vector<DType> TypesOf(const GpuMemberOp &op) {
  if (op.integers) return {DType::kF32, DType::kF64, DType::kI32, DType::kI64};
  return {DType::kF32, DType::kF64};
}

TEST(GpuMemberOpsTest, EachHasAGpuKernelAtEachOfItsDtypes) {
  for (const GpuMemberOp &op : GpuMemberOps()) {
    const OpDef *def = OpRegistry::Global().Find(op.op);
    ASSERT_NE(def, nullptr) << op.op;
    EXPECT_EQ(static_cast<int>(def->inputs.size()), op.arity) << op.op;
    for (DType t : TypesOf(op)) {
      AttrMap attrs{{"T", t}};
      EXPECT_TRUE(OpRegistry::Global().FindKernel(*def, DeviceType::kGpu, attrs).ok()) << op.op << " " << DTypeName(t);
      EXPECT_NE(FindGpuMemberOp(op.op, t), nullptr) << op.op << " " << DTypeName(t);
    }
  }
}

TEST(GpuMemberOpsTest, IntegersOnlyWhereTheGpuKernelTakesThem) {
  ASSERT_NE(FindGpuMemberOp("add", DType::kI32), nullptr);
  ASSERT_NE(FindGpuMemberOp("maximum", DType::kI64), nullptr);
  // Integer division checks its divisors first, on the CPU.
  EXPECT_EQ(FindGpuMemberOp("div", DType::kI32), nullptr);
  EXPECT_EQ(FindGpuMemberOp("exp", DType::kI64), nullptr);
  EXPECT_EQ(FindGpuMemberOp("add", DType::kF16), nullptr);
  EXPECT_EQ(FindGpuMemberOp("cast", DType::kF32), nullptr);
}

// One kernel per dtype that runs every op of that dtype once, on inputs
// and on the members before it.
GpuProgram EveryOp(DType t) {
  GpuProgram p;
  p.type = t;
  p.num_inputs = 2;
  for (const GpuMemberOp &op : GpuMemberOps()) {
    if (FindGpuMemberOp(op.op, t) == nullptr) continue;
    const int k = static_cast<int>(p.functors.size());
    p.functors.push_back(op.functor);
    if (op.arity == 1) {
      p.args.push_back({k == 0 ? 0 : -k});
    } else {
      p.args.push_back({k == 0 ? 0 : -k, 1});
    }
  }
  p.outputs = {static_cast<int>(p.functors.size()) - 1, 0};
  return p;
}

TEST(FusedCudaSourceTest, EveryOpAtEveryDtypeCompilesWithNvrtc) {
  for (DType t : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    const GpuProgram p = EveryOp(t);
    const std::string source = FusedCudaSource(p);
    for (int arch : {75, 90}) {
      Result<std::string> cubin = cuda::CompileToCubin(source, FusedCudaHeaders(), arch);
      if (!cubin.ok() && cubin.status().code() == Code::kUnavailable) GTEST_SKIP() << cubin.status().ToString();
      ASSERT_TRUE(cubin.ok()) << DTypeName(t) << " sm_" << arch << ": " << cubin.status().ToString() << "\n" << source;
      // An ELF image, as cudaLibraryLoadData takes it.
      ASSERT_GT(cubin->size(), 4u);
      EXPECT_EQ(cubin->substr(1, 3), "ELF");
    }
  }
}

TEST(FusedCudaSourceTest, EachMemberCallsItsFunctorAndEachOutputIsWritten) {
  GpuProgram p;
  p.type = DType::kF64;
  p.num_inputs = 2;
  p.functors = {"Mul", "Add", "Relu"};
  p.args = {{0, 1}, {-1, 0}, {-2}};
  p.outputs = {2, 0};
  const std::string s = FusedCudaSource(p);
  EXPECT_NE(s.find("double m0 = tfg::functor::Mul()(a0, a1);"), std::string::npos) << s;
  EXPECT_NE(s.find("double m1 = tfg::functor::Add()(m0, a0);"), std::string::npos) << s;
  EXPECT_NE(s.find("double m2 = tfg::functor::Relu()(m1);"), std::string::npos) << s;
  EXPECT_NE(s.find("out0[i] = m2;"), std::string::npos);
  EXPECT_NE(s.find("out1[i] = m0;"), std::string::npos);
}

TEST(FusedCudaSourceTest, ACompileErrorComesBackWithNvrtcsLog) {
  GpuProgram p;
  p.num_inputs = 1;
  p.functors = {"NoSuchFunctor"};
  p.args = {{0}};
  p.outputs = {0};
  Result<std::string> cubin = cuda::CompileToCubin(FusedCudaSource(p), FusedCudaHeaders(), 90);
  if (!cubin.ok() && cubin.status().code() == Code::kUnavailable) GTEST_SKIP() << cubin.status().ToString();
  ASSERT_FALSE(cubin.ok());
  EXPECT_EQ(cubin.status().code(), Code::kInvalidArgument);
  EXPECT_NE(cubin.status().message().find("NoSuchFunctor"), std::string::npos) << cubin.status().ToString();
}

}  // namespace
}  // namespace tfg::fused
