// Row arithmetic shared by the two softmax cross-entropy ops: logits are
// [rows, classes] (the class dimension last), computed in C (float for f16
// and f32, double for f64) after subtracting the row maximum, so huge
// logits neither overflow nor lose precision.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>

#include "ops/core/shape.h"

namespace tfg::nn {

// log(sum(exp(x))) of one row of n > 0 values.
template <typename C>
C LogSumExp(const C* x, int64_t n) {
  using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
  const Eigen::Map<const Array> xs(x, n);
  const C max = xs.maxCoeff();
  return max + std::log((xs - max).exp().sum());
}

// out[j] = scale * (weight * softmax(x)[j]) for one row, given its lse.
template <typename C>
void ScaledSoftmax(const C* x, int64_t n, C lse, C weight, C scale, C* out) {
  using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
  const Eigen::Map<const Array> xs(x, n);
  Eigen::Map<Array> os(out, n);
  os = (xs - lse).exp() * (weight * scale);
}

// Logits must have a class dimension.
inline Status CheckLogitsRank(const std::string& op, const PartialShape& logits) {
  if (!logits.known_rank() || logits.rank() >= 1) return Status::OK();
  return InvalidArgument("{}: logits must have rank >= 1 [..., classes], got a scalar", op);
}

}  // namespace tfg::nn
