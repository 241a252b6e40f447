// The CUDA source of a fused elementwise kernel for the GPU
// (fused_elementwise_cuda.cc), generated from the group's program when a
// plan is made and compiled by NVRTC (devices/cuda/nvrtc_library.h). Each
// member calls the same functor (ops/math/cwise_functors.h) that its op's
// own GPU kernel (ops/math/cwise_cuda.cu) runs, and both are compiled
// without FMA contraction (--fmad=false), so no product of one member and
// sum of the next become one FMA: fused and unfused GPU results are the
// same bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/cuda/nvrtc_library.h"
#include "ops/core/dtype.h"

namespace tfg::fused {

// An op a GPU fused kernel can run: the functor its own GPU kernel uses.
struct GpuMemberOp {
  const char *op;
  const char *functor;  // in tfg::functor
  int arity;
  bool integers;  // also for i32 and i64 (else f32 and f64 only)
};

// The op's entry when `op` on `type` has a GPU kernel that a fused kernel
// can stand for; null otherwise.
const GpuMemberOp *FindGpuMemberOp(const std::string &op, DType type);
// Every entry (for tests that check them against the GPU kernels).
std::vector<GpuMemberOp> GpuMemberOps();

// Inputs and dims a kernel takes at most; the host fills GpuIndex (with
// these bounds) for the kernel's parameter of the same layout.
inline constexpr int kMaxGpuInputs = 16;
inline constexpr int kMaxGpuRank = 8;

// Where each input's element for output element i is: the output's
// dims (collapsed), and each input's strides along them (0 where it
// broadcasts). mode: 0 = same shape as the output (offset i), 1 = one
// element (offset 0), 2 = by the strides.
struct GpuIndex {
  int64_t dims[kMaxGpuRank] = {};
  int64_t strides[kMaxGpuInputs][kMaxGpuRank] = {};
  int32_t mode[kMaxGpuInputs] = {};
  int32_t rank = 0;
};

struct GpuProgram {
  DType type = DType::kF32;  // of every input, member and output
  int num_inputs = 0;
  std::vector<std::string> functors;   // per member
  std::vector<std::vector<int>> args;  // per member: >= 0 input, < 0 member -a-1
  std::vector<int> outputs;            // the members written to outputs 0, 1, ...
};

// The kernel's name in the source.
inline constexpr char kGpuKernelName[] = "tfg_fused";

// extern "C" __global__ void tfg_fused(const T* in0, ..., T* out0, ...,
// long long n, GpuIndex index): a grid-stride loop over the n outputs.
std::string FusedCudaSource(const GpuProgram &program);
// The files it includes: the functor headers and their standard library.
const std::vector<cuda::SourceFile> &FusedCudaHeaders();

}  // namespace tfg::fused
