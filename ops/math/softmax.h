// softmax's and log_softmax's attr and input checks, defined in
// ops/math/softmax.cc and used by their CPU kernels and their GPU kernels
// (ops/math/reduce_cuda.cc), so both accept the same inputs and word their
// errors alike.
#pragma once

#include <cstdint>
#include <string>

#include "ops/core/attr.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg {

// `axis`; -1 (the last) when absent.
int64_t SoftmaxAxisAttr(const AttrMap& attrs);

// The input viewed as [outer, n, inner] around the normalized axis.
struct SoftmaxLayout {
  int axis = 0;
  int64_t outer = 1, n = 1, inner = 1;
};
// Errors (InvalidArgument, naming `op`): a scalar input, an axis outside
// [-rank, rank).
Result<SoftmaxLayout> MakeSoftmaxLayout(const std::string& op, const TensorShape& x, int64_t axis);

}  // namespace tfg
