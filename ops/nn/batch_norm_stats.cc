#include "ops/nn/batch_norm_stats.h"

#include <algorithm>
#include <cmath>

#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn {
namespace {

// Rows are summed in blocks of kRowsPerBlock: within a block in the data's
// own type, vectorized over the channels, of values taken relative to a
// per-channel shift (the first row in training mode), so that a sum of
// squares does not cancel against a large mean; the blocks' sums then add
// up in f64, in block order, so the result does not depend on threads.
constexpr int64_t kRowsPerBlock = 64;

// sums[k * c + j] (k < K) over all rows of what add_row(r, acc) adds into
// acc[k * c + j] for row r.
template <int K, typename C, typename AddRow>
std::vector<double> BlockSums(const OpKernelContext& ctx, int64_t rows, int64_t c, AddRow add_row) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<double> partial(static_cast<size_t>(blocks * K * c));
  ctx.ParallelFor(blocks, kRowsPerBlock * c * K, [&](int64_t s, int64_t e) {
    std::vector<C> acc(static_cast<size_t>(K * c));
    for (int64_t b = s; b < e; ++b) {
      std::fill(acc.begin(), acc.end(), C(0));
      for (int64_t r = b * kRowsPerBlock; r < std::min(rows, (b + 1) * kRowsPerBlock); ++r) add_row(r, acc.data());
      std::copy(acc.begin(), acc.end(), partial.begin() + b * K * c);
    }
  });
  std::vector<double> sums(static_cast<size_t>(K * c), 0.0);
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t i = 0; i < K * c; ++i) sums[i] += partial[b * K * c + i];
  }
  return sums;
}

// The shift of each channel: its first row, a value of the data's own
// magnitude (the rows' deviations from it are then about their spread).
template <typename C>
std::vector<C> FirstRow(const C* x, int64_t rows, int64_t c) {
  return rows > 0 ? std::vector<C>(x, x + c) : std::vector<C>(static_cast<size_t>(c), C(0));
}

// Mean and biased variance from sums of d = x - shift and of d * d.
ChannelStats StatsFromShiftedSums(const std::vector<double>& shift, const double* sum_d, const double* sum_dd,
                                  int64_t rows) {
  const size_t c = shift.size();
  const double n = static_cast<double>(std::max<int64_t>(rows, 1));
  ChannelStats s{std::vector<double>(c), std::vector<double>(c)};
  for (size_t j = 0; j < c; ++j) {
    const double d = sum_d[j] / n;
    s.mean[j] = shift[j] + d;
    s.var[j] = std::max(0.0, sum_dd[j] / n - d * d);
  }
  return s;
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (t.dtype()) {
      case DType::kF16: v[i] = static_cast<double>(static_cast<float>(t.data<half>()[i])); break;
      case DType::kF32: v[i] = t.data<float>()[i]; break;
      default: v[i] = t.data<double>()[i]; break;
    }
  }
  return v;
}

// `t` is f16, f32 or f64 (the ops' kernels dispatch on float types only).
void WriteDoubles(const std::vector<double>& v, Tensor* t) {
  for (size_t i = 0; i < v.size(); ++i) {
    switch (t->dtype()) {
      case DType::kF16: t->data<half>()[i] = static_cast<half>(static_cast<float>(v[i])); break;
      case DType::kF32: t->data<float>()[i] = static_cast<float>(v[i]); break;
      default: t->data<double>()[i] = v[i]; break;
    }
  }
}

// "[C]" vectors: scale, offset, ..., named in errors.
Status CheckVector(const std::string& op, const char* what, const TensorShape& s, int64_t c, bool may_be_empty) {
  if (s == TensorShape({c}) || (may_be_empty && s == TensorShape({0}))) return Status::OK();
  return InvalidArgument("{}: {} must have shape [{}] (one value per channel of x), got {}", op, what, c, s.ToString());
}

// Merges the channel count `c` with a static [C] vector's size.
Status MergeChannels(const std::string& op, const char* what, const PartialShape& s, bool may_be_empty, int64_t& c) {
  if (!s.known_rank()) return Status::OK();
  if (s.rank() != 1) return InvalidArgument("{}: {} must be a vector [channels], got {}", op, what, s.ToString());
  const int64_t n = s.dim(0);
  if (n < 0 || (may_be_empty && n == 0)) return Status::OK();
  if (c >= 0 && n != c) {
    return InvalidArgument("{}: {} has {} values, expected {} (one per channel of x)", op, what, n, c);
  }
  c = n;
  return Status::OK();
}

}  // namespace

Result<BatchNormParams> ReadBatchNormParams(const AttrMap& attrs, const std::string& op) {
  BatchNormParams p;
  TFG_ASSIGN_OR_RETURN(p.epsilon, GetAttr<double>(attrs, op, "epsilon"));
  TFG_ASSIGN_OR_RETURN(p.training, GetAttr<bool>(attrs, op, "training"));
  if (!(p.epsilon >= 0)) return InvalidArgument("{}: epsilon must be >= 0, got {}", op, p.epsilon);
  return p;
}

Result<int64_t> CheckBatchNormInputs(const OpKernelContext& ctx, const BatchNormParams& p, int x_index) {
  const std::string& op = OpName(ctx);
  const Tensor& x = ctx.input(x_index);
  if (x.rank() < 1) return InvalidArgument("{}: x must have rank >= 1 [..., channels], got a scalar", op);
  const int64_t c = x.dim(x.rank() - 1);
  const bool grad = x_index == 1;
  TFG_RETURN_IF_ERROR(CheckVector(op, "scale", ctx.input(x_index + 1).shape(), c, false));
  if (!grad) TFG_RETURN_IF_ERROR(CheckVector(op, "offset", ctx.input(2).shape(), c, false));
  TFG_RETURN_IF_ERROR(CheckVector(op, "mean", ctx.input(3).shape(), c, p.training));
  TFG_RETURN_IF_ERROR(CheckVector(op, "variance", ctx.input(4).shape(), c, p.training));
  if (grad) {
    TFG_RETURN_IF_ERROR(CheckVector(op, "dbatch_mean", ctx.input(5).shape(), c, false));
    TFG_RETURN_IF_ERROR(CheckVector(op, "dbatch_variance", ctx.input(6).shape(), c, false));
  }
  return c;
}

Result<int64_t> BatchNormChannels(const ShapeContext& c, const BatchNormParams& p, int x_index) {
  const std::string& op = c.op().name;
  const PartialShape& x = c.input(x_index);
  if (x.known_rank() && x.rank() < 1) {
    return InvalidArgument("{}: x must have rank >= 1 [..., channels], got a scalar", op);
  }
  int64_t channels = x.known_rank() ? x.dim(x.rank() - 1) : PartialShape::kUnknown;
  const bool grad = x_index == 1;
  TFG_RETURN_IF_ERROR(MergeChannels(op, "scale", c.input(x_index + 1), false, channels));
  if (!grad) TFG_RETURN_IF_ERROR(MergeChannels(op, "offset", c.input(2), false, channels));
  TFG_RETURN_IF_ERROR(MergeChannels(op, "mean", c.input(3), p.training, channels));
  TFG_RETURN_IF_ERROR(MergeChannels(op, "variance", c.input(4), p.training, channels));
  if (grad) {
    TFG_RETURN_IF_ERROR(MergeChannels(op, "dbatch_mean", c.input(5), false, channels));
    TFG_RETURN_IF_ERROR(MergeChannels(op, "dbatch_variance", c.input(6), false, channels));
  }
  return channels;
}

template <typename C>
ChannelStats BatchStats(const OpKernelContext& ctx, const C* x, int64_t rows, int64_t c) {
  const std::vector<C> shift = FirstRow(x, rows, c);
  const C* k = shift.data();
  const std::vector<double> sums = BlockSums<2, C>(ctx, rows, c, [&](int64_t r, C* __restrict acc) {
    const C* __restrict xr = x + r * c;
    C* __restrict acc_dd = acc + c;
    for (int64_t j = 0; j < c; ++j) {
      const C d = xr[j] - k[j];
      acc[j] += d;
      acc_dd[j] += d * d;
    }
  });
  return StatsFromShiftedSums(std::vector<double>(shift.begin(), shift.end()), sums.data(), sums.data() + c, rows);
}

ChannelStats GivenStats(const Tensor& mean, const Tensor& variance) { return {ToDoubles(mean), ToDoubles(variance)}; }

Status WriteBatchStats(OpKernelContext& ctx, const ChannelStats& stats, int64_t rows) {
  const int64_t c = static_cast<int64_t>(stats.mean.size());
  TFG_ASSIGN_OR_RETURN(Tensor * mean, ctx.allocate_output(1, TensorShape({c})));
  TFG_ASSIGN_OR_RETURN(Tensor * var, ctx.allocate_output(2, TensorShape({c})));
  const double correction = static_cast<double>(rows) / static_cast<double>(std::max<int64_t>(rows - 1, 1));
  std::vector<double> unbiased = stats.var;
  for (double& v : unbiased) v *= correction;
  WriteDoubles(stats.mean, mean);
  WriteDoubles(unbiased, var);
  return Status::OK();
}

namespace {

// What batch_norm_grad's factors need: the statistics, sum(dy) and
// sum(dy * (x - mean)) per channel.
struct GradSums {
  ChannelStats stats;
  std::vector<double> dy, dy_centered;
};

// One pass over x and dy: the statistics (training mode; inference mode
// takes the given ones) and the sums, all from sums relative to a
// per-channel shift.
template <typename C>
GradSums GradientSums(const OpKernelContext& ctx, const BatchNormParams& p, const C* x, const C* dy, int64_t rows,
                         int64_t c) {
  GradSums g;
  if (!p.training) g.stats = GivenStats(ctx.input(3), ctx.input(4));
  std::vector<C> shift = p.training ? FirstRow(x, rows, c) : std::vector<C>(g.stats.mean.begin(), g.stats.mean.end());
  const C* k = shift.data();
  const std::vector<double> sums = BlockSums<4, C>(ctx, rows, c, [&](int64_t r, C* __restrict acc) {
    const C* __restrict xr = x + r * c;
    const C* __restrict dyr = dy + r * c;
    C* __restrict acc_dd = acc + c;
    C* __restrict acc_g = acc + 2 * c;
    C* __restrict acc_gd = acc + 3 * c;
    for (int64_t j = 0; j < c; ++j) {
      const C d = xr[j] - k[j], gj = dyr[j];
      acc[j] += d;
      acc_dd[j] += d * d;
      acc_g[j] += gj;
      acc_gd[j] += gj * d;
    }
  });
  const std::vector<double> shift_d(shift.begin(), shift.end());
  if (p.training) g.stats = StatsFromShiftedSums(shift_d, sums.data(), sums.data() + c, rows);
  g.dy.assign(sums.begin() + 2 * c, sums.begin() + 3 * c);
  g.dy_centered.resize(static_cast<size_t>(c));
  // sum(dy * (x - mean)) = sum(dy * (x - shift)) - (mean - shift) * sum(dy)
  for (int64_t j = 0; j < c; ++j) g.dy_centered[j] = sums[3 * c + j] - (g.stats.mean[j] - shift_d[j]) * g.dy[j];
  return g;
}

}  // namespace

// dx = k[j] * dy + (x - mean) * a[j] + b[j]; the per-channel factors come
// from the sums of dy and dy * (x - mean).
template <typename C>
void BatchNormBackward(const OpKernelContext& ctx, const BatchNormParams& p, const C* x, int64_t rows, int64_t c,
                       Tensor* const outs[5]) {
  FloatView<C> vdy(ctx.input(0)), vscale(ctx.input(2)), vdbm(ctx.input(5)), vdbv(ctx.input(6));
  const C *dy = vdy.get(), *scale = vscale.get(), *dbm = vdbm.get(), *dbv = vdbv.get();
  const GradSums sums = GradientSums(ctx, p, x, dy, rows, c);
  const ChannelStats& stats = sums.stats;
  const double m = static_cast<double>(rows), m1 = static_cast<double>(std::max<int64_t>(rows - 1, 1));
  std::vector<C> k(c), a(c), b(c), mean(c);
  std::vector<double> dscale(c), doffset(c), dmean(c, 0.0), dvar(c, 0.0);
  for (int64_t j = 0; j < c; ++j) {
    const double inv = 1.0 / std::sqrt(stats.var[j] + p.epsilon), s0 = sums.dy[j], s1 = sums.dy_centered[j];
    const double kj = static_cast<double>(scale[j]) * inv;
    dscale[j] = s1 * inv;
    doffset[j] = s0;
    k[j] = static_cast<C>(kj);
    mean[j] = static_cast<C>(stats.mean[j]);
    if (p.training) {
      const double av = -kj * inv * dscale[j] / m + 2.0 * static_cast<double>(dbv[j]) / m1;
      a[j] = static_cast<C>(av);
      b[j] = static_cast<C>(-kj * s0 / m + static_cast<double>(dbm[j]) / m);
    } else {
      a[j] = b[j] = C(0);
      dmean[j] = -kj * s0 + static_cast<double>(dbm[j]);
      dvar[j] = -0.5 * static_cast<double>(scale[j]) * s1 * inv * inv * inv + static_cast<double>(dbv[j]);
    }
  }
  FloatOut<C> dx(outs[0]);
  C* pdx = dx.get();
  const C *pk = k.data(), *pa = a.data(), *pb = b.data(), *pm = mean.data();
  ctx.ParallelFor(rows, 3 * c, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      const C* __restrict xr = x + r * c;
      const C* __restrict dyr = dy + r * c;
      C* __restrict dxr = pdx + r * c;
      for (int64_t j = 0; j < c; ++j) dxr[j] = pk[j] * dyr[j] + (xr[j] - pm[j]) * pa[j] + pb[j];
    }
  });
  dx.Finish();
  WriteDoubles(dscale, outs[1]);
  WriteDoubles(doffset, outs[2]);
  WriteDoubles(dmean, outs[3]);
  WriteDoubles(dvar, outs[4]);
}

template ChannelStats BatchStats<float>(const OpKernelContext&, const float*, int64_t, int64_t);
template ChannelStats BatchStats<double>(const OpKernelContext&, const double*, int64_t, int64_t);
template void BatchNormBackward<float>(const OpKernelContext&, const BatchNormParams&, const float*, int64_t, int64_t,
                                       Tensor* const[5]);
template void BatchNormBackward<double>(const OpKernelContext&, const BatchNormParams&, const double*, int64_t,
                                        int64_t, Tensor* const[5]);

}  // namespace tfg::nn
