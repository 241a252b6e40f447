// Whether a float buffer holds no NaN and no Inf, for kernels whose fast
// path treats those differently from the arithmetic it replaces (oneDNN's
// ReLU post-op, Winograd convolutions).
#pragma once

#include <cstdint>

#include "ops/core/kernel.h"

namespace tfg::nn {

bool AllFinite(const OpKernelContext& ctx, const float* p, int64_t n);
// The same on the calling thread alone (inside a slice of a ParallelFor).
bool AllFinite(const float* p, int64_t n);

}  // namespace tfg::nn
