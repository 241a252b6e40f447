// The pieces of batch_norm and batch_norm_grad (ops/nn/batch_norm.cc):
// attrs, input checks, per-channel statistics (one pass: sums of each
// value's distance to a per-channel shift, in blocks of rows accumulated in
// the data's type and added up in f64, so the variance does not cancel)
// and the backward pass (one pass for its sums, one for dx).
// Layout: x is [rows, c] with the channel dimension last.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/kernel.h"

namespace tfg::nn {

struct BatchNormParams {
  double epsilon = 0.001;
  bool training = true;
};
Result<BatchNormParams> ReadBatchNormParams(const AttrMap& attrs, const std::string& op);

// Checks the run's inputs (x at `x_index`, scale after it, then offset in
// the forward op; mean/variance at 3 and 4, which training mode allows to
// be empty; the grad op's dbatch_mean/dbatch_variance at 5 and 6) and
// returns the channel count.
Result<int64_t> CheckBatchNormInputs(const OpKernelContext& ctx, const BatchNormParams& p, int x_index);
// The same checks on static shapes; returns the channel count or -1.
Result<int64_t> BatchNormChannels(const ShapeContext& c, const BatchNormParams& p, int x_index);

struct ChannelStats {
  std::vector<double> mean;
  std::vector<double> var;  // biased: the one normalisation divides by
};
template <typename C>
ChannelStats BatchStats(const OpKernelContext& ctx, const C* x, int64_t rows, int64_t c);
ChannelStats GivenStats(const Tensor& mean, const Tensor& variance);

// Outputs 1 and 2 of the forward op: the batch mean and unbiased variance.
Status WriteBatchStats(OpKernelContext& ctx, const ChannelStats& stats, int64_t rows);

// Fills batch_norm_grad's five outputs from its inputs (see batch_norm.cc):
// in training mode with x's batch statistics, else the given ones.
template <typename C>
void BatchNormBackward(const OpKernelContext& ctx, const BatchNormParams& p, const C* x, int64_t rows, int64_t c,
                       Tensor* const outs[5]);

}  // namespace tfg::nn
