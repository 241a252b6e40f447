// matmul's attrs and operand checks, defined in ops/math/matmul.cc and used
// by its CPU kernel and its GPU kernel (ops/math/matmul_cuda.cc), so both
// accept the same operands and word their errors alike.
#pragma once

#include <cstdint>
#include <string>

#include "ops/core/attr.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg {

struct MatMulAttrs {
  bool transpose_a = false;
  bool transpose_b = false;
};
// An absent attr reads as false.
MatMulAttrs ReadMatMulAttrs(const AttrMap& attrs);

// One product of concrete operands: op(a) is [a_batch..., m, k], op(b)
// [b_batch..., k, n]; the batch dimensions broadcast NumPy-style to
// out_batch, and the product has shape `out` = out_batch + [m, n].
struct MatMulGeometry {
  TensorShape a_batch, b_batch, out_batch;
  int64_t m = 0, k = 0, n = 0;
  TensorShape out;
};
// Errors (InvalidArgument, naming `op`): an operand of rank < 2, inner
// dimensions that differ (naming the transposes), batch dimensions that do
// not broadcast; worded as matmul's shape function words them.
Result<MatMulGeometry> ComputeMatMulGeometry(const std::string& op, const TensorShape& a, const TensorShape& b,
                                             const MatMulAttrs& attrs);

}  // namespace tfg
