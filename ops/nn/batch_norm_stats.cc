#include "ops/nn/batch_norm_stats.h"

#include <array>
#include <cmath>

#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn {
namespace {

constexpr int64_t kRowsPerBlock = 256;

// sums[k * c + j] = sum over rows r of term(r, j)[k], in f64. Row blocks
// get their own partial sums, so threads never share an accumulator.
template <int K, typename Term>
std::vector<double> ChannelSums(const OpKernelContext& ctx, int64_t rows, int64_t c, Term term) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<double> partial(static_cast<size_t>(blocks * K * c), 0.0);
  ctx.ParallelFor(blocks, kRowsPerBlock * c * K, [&](int64_t s, int64_t e) {
    for (int64_t b = s; b < e; ++b) {
      double* acc = partial.data() + b * K * c;
      for (int64_t r = b * kRowsPerBlock; r < std::min(rows, (b + 1) * kRowsPerBlock); ++r) {
        for (int64_t j = 0; j < c; ++j) {
          const std::array<double, K> t = term(r, j);
          for (int k = 0; k < K; ++k) acc[k * c + j] += t[k];
        }
      }
    }
  });
  std::vector<double> sums(static_cast<size_t>(K * c), 0.0);
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t i = 0; i < K * c; ++i) sums[i] += partial[b * K * c + i];
  }
  return sums;
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
  ChannelStats s;
  s.mean = ChannelSums<1>(
      ctx, rows, c, [&](int64_t r, int64_t j) { return std::array<double, 1>{static_cast<double>(x[r * c + j])}; });
  for (double& m : s.mean) m /= static_cast<double>(rows);
  s.var = ChannelSums<1>(ctx, rows, c, [&](int64_t r, int64_t j) {
    const double d = static_cast<double>(x[r * c + j]) - s.mean[j];
    return std::array<double, 1>{d * d};
  });
  for (double& v : s.var) v /= static_cast<double>(rows);
  return s;
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

// dx = k[j] * dy + (x - mean) * a[j] + b[j]; the per-channel factors come
// from the sums of dy and dy * (x - mean).
template <typename C>
void BatchNormBackward(const OpKernelContext& ctx, const BatchNormParams& p, const ChannelStats& stats, const C* x,
                       int64_t rows, int64_t c, Tensor* const outs[5]) {
  FloatView<C> vdy(ctx.input(0)), vscale(ctx.input(2)), vdbm(ctx.input(5)), vdbv(ctx.input(6));
  const C *dy = vdy.get(), *scale = vscale.get(), *dbm = vdbm.get(), *dbv = vdbv.get();
  const std::vector<double>& mean = stats.mean;
  const std::vector<double> sums = ChannelSums<2>(ctx, rows, c, [&](int64_t r, int64_t j) {
    const double d = static_cast<double>(dy[r * c + j]);
    return std::array<double, 2>{d, d * (static_cast<double>(x[r * c + j]) - mean[j])};
  });
  const double m = static_cast<double>(rows), m1 = static_cast<double>(std::max<int64_t>(rows - 1, 1));
  std::vector<C> k(c), a(c), b(c);
  std::vector<double> dscale(c), doffset(c), dmean(c, 0.0), dvar(c, 0.0);
  for (int64_t j = 0; j < c; ++j) {
    const double inv = 1.0 / std::sqrt(stats.var[j] + p.epsilon), s0 = sums[j], s1 = sums[c + j];
    const double kj = static_cast<double>(scale[j]) * inv;
    dscale[j] = s1 * inv;
    doffset[j] = s0;
    k[j] = static_cast<C>(kj);
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
  ctx.ParallelFor(rows, 3 * c, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      for (int64_t j = 0; j < c; ++j) {
        const C centered = x[r * c + j] - static_cast<C>(mean[j]);
        pdx[r * c + j] = k[j] * dy[r * c + j] + centered * a[j] + b[j];
      }
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
template void BatchNormBackward<float>(const OpKernelContext&, const BatchNormParams&, const ChannelStats&,
                                       const float*, int64_t, int64_t, Tensor* const[5]);
template void BatchNormBackward<double>(const OpKernelContext&, const BatchNormParams&, const ChannelStats&,
                                        const double*, int64_t, int64_t, Tensor* const[5]);

}  // namespace tfg::nn
