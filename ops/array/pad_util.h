// Pad modes and index maps shared by pad and its gradient pad_grad.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg::array {

enum class PadMode { kConstant, kReflect, kSymmetric };

// "CONSTANT", "REFLECT", "SYMMETRIC" (any case); `op` names the caller.
Result<PadMode> ParsePadMode(const std::string& op, std::string mode);

// Checks paddings (2 per dim, >= 0; mirror modes limited by the dim size)
// against `in` (dims may be unknown) and returns the padded dims.
Result<std::vector<int64_t>> PaddedDims(const std::string& op, const PartialShape& in,
                                        const std::vector<int64_t>& pads, PadMode mode);

// For each output index j along one dim: the input index it reads, or -1
// where the constant goes.
std::vector<int64_t> PadIndexMap(int64_t before, int64_t dim, int64_t out_dim, PadMode mode);

}  // namespace tfg::array
