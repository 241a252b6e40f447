// Row arithmetic shared by the two softmax cross-entropy ops: logits are
// [rows, classes] (the class dimension last), computed in C (float for f16
// and f32, double for f64) after subtracting the row maximum, so huge
// logits neither overflow nor lose precision. Also their operand checks,
// used by their CPU kernels and their GPU kernels
// (ops/nn/cross_entropy_cuda.cc), so both accept the same operands and
// word their errors alike.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/shape.h"
#include "ops/core/status.h"

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

// Concrete logits [..., classes] as rows, each with one loss.
struct CrossEntropyRows {
  int64_t rows = 0;
  int64_t classes = 0;
  TensorShape loss;  // logits.shape[:-1]
};
// `logits` must have rank >= 1 (checked by the callers below).
inline CrossEntropyRows LogitRows(const TensorShape& logits) {
  const std::vector<int64_t>& dims = logits.dims();
  CrossEntropyRows r;
  r.loss = TensorShape(std::vector<int64_t>(dims.begin(), dims.end() - 1));
  r.rows = r.loss.num_elements();
  r.classes = dims.back();
  return r;
}

// softmax_cross_entropy_with_logits and its _grad helper (defined in
// ops/nn/softmax_cross_entropy.cc): labels have the shape of logits; the
// helper's dloss holds one value per row, at rank logits.rank - 1 (checked
// after DenseCrossEntropyRows).
Result<CrossEntropyRows> DenseCrossEntropyRows(const std::string& op, const TensorShape& logits,
                                               const TensorShape& labels);
Status CheckDenseCrossEntropyDloss(const std::string& op, const TensorShape& logits, const TensorShape& dloss);

// sparse_softmax_cross_entropy and its _grad helper (defined in
// ops/nn/sparse_softmax_cross_entropy.cc): labels have shape
// logits.shape[:-1], as does the helper's dloss. The label values are the
// CPU kernels' own check (the GPU's are in device memory).
Result<CrossEntropyRows> SparseCrossEntropyRows(const std::string& op, const TensorShape& logits,
                                                const TensorShape& labels);
Status CheckSparseCrossEntropyDloss(const std::string& op, const TensorShape& labels, const TensorShape& dloss);

}  // namespace tfg::nn
