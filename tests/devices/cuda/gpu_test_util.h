// Running one op's GPU kernel the way the executor does (asynchronously,
// on device memory), for the GPU-vs-CPU tests and scripts/gpu-check.
#pragma once

#include <string>
#include <vector>

#include "ops/core/device.h"
#include "ops/core/attr.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::test {

// The first GPU, or null when there is none (tests then GTEST_SKIP).
Device* TestGpuDevice();

// True when `op` has a GPU kernel for these input dtypes and attrs.
bool HasGpuKernel(const std::string& op, const std::vector<DType>& input_types, AttrMap attrs);

// Copies the host `inputs` to `gpu`, runs the op's GPU kernel there through
// ComputeAsync, and copies the outputs back to host memory.
Result<std::vector<Tensor>> RunOpOnGpu(Device* gpu, const std::string& op, const std::vector<Tensor>& inputs,
                                       AttrMap attrs = {});

}  // namespace tfg::test
