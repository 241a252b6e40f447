// batch_norm(x, scale, offset, mean, variance, epsilon=0.001, training=true)
//   -> [y, batch_mean, batch_variance]
// TensorFlow's fused batch norm over the last (channel) dimension:
//   y = (x - m) * scale / sqrt(v + epsilon) + offset
// where in training mode m, v are the batch statistics over every other
// dimension (v biased), batch_mean = m and batch_variance = v * n / (n - 1)
// (unbiased, for moving averages; n - 1 taken as 1 when n == 1); in
// inference mode m, v are the given mean/variance, passed through as the
// second and third outputs. In training mode mean and variance are unused
// and may be empty.
//
// Gradient helper, one fused pass after the statistics:
//   batch_norm_grad(dy, x, scale, mean, variance, dbatch_mean, dbatch_variance)
//     -> [dx, dscale, doffset, dmean, dvariance]
// including what flows back through batch_mean/batch_variance, so the
// whole op is differentiated exactly in both modes.
#include <cmath>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/batch_norm_stats.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace {

using nn::BatchNormParams;
using nn::ChannelStats;

template <typename C>
void Normalize(const OpKernelContext& ctx, const C* x, const std::vector<double>& mean, const std::vector<double>& var,
               const C* scale, const C* offset, double epsilon, int64_t rows, int64_t c, C* y) {
  std::vector<C> a(c), b(c);
  for (int64_t j = 0; j < c; ++j) {
    const double s = static_cast<double>(scale[j]) / std::sqrt(var[j] + epsilon);
    a[j] = static_cast<C>(s);
    b[j] = static_cast<C>(static_cast<double>(offset[j]) - mean[j] * s);
  }
  ctx.ParallelFor(rows, 2 * c, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      for (int64_t j = 0; j < c; ++j) y[r * c + j] = x[r * c + j] * a[j] + b[j];
    }
  });
}

class BatchNormKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(params_, nn::ReadBatchNormParams(*c.attrs, c.op->name));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(int64_t c, nn::CheckBatchNormInputs(ctx, params_, 0));
    const int64_t rows = c == 0 ? 0 : x.num_elements() / c;
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.shape()));
    ChannelStats stats;
    TFG_RETURN_IF_ERROR(nn::DispatchFloat(nn::OpName(ctx), x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatView<C> px(x), scale(ctx.input(1)), offset(ctx.input(2));
      stats = params_.training ? nn::BatchStats(ctx, px.get(), rows, c) : nn::GivenStats(ctx.input(3), ctx.input(4));
      nn::FloatOut<C> out(y);
      Normalize<C>(ctx, px.get(), stats.mean, stats.var, scale.get(), offset.get(), params_.epsilon, rows, c,
                   out.get());
      out.Finish();
    }));
    if (!params_.training) {
      ctx.set_output(1, ctx.input(3));
      ctx.set_output(2, ctx.input(4));
      return Status::OK();
    }
    return nn::WriteBatchStats(ctx, stats, rows);
  }

 private:
  BatchNormParams params_;
};

Status BatchNormShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(BatchNormParams p, nn::ReadBatchNormParams(c.attrs(), c.op().name));
  TFG_ASSIGN_OR_RETURN(int64_t channels, nn::BatchNormChannels(c, p, 0));
  c.set_output(0, c.input(0));
  c.set_output(1, PartialShape({channels}));
  c.set_output(2, PartialShape({channels}));
  return Status::OK();
}

Status BatchNormGradShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(BatchNormParams p, nn::ReadBatchNormParams(c.attrs(), c.op().name));
  TFG_ASSIGN_OR_RETURN(int64_t channels, nn::BatchNormChannels(c, p, 1));
  c.set_output(0, c.input(1));
  for (int i = 1; i < 5; ++i) c.set_output(i, PartialShape({channels}));
  return Status::OK();
}

class BatchNormGradKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(params_, nn::ReadBatchNormParams(*c.attrs, c.op->name));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(int64_t c, nn::CheckBatchNormInputs(ctx, params_, 1));
    if (ctx.input(0).shape() != x.shape()) {
      return InvalidArgument("{}: dy has shape {} but x has shape {}", nn::OpName(ctx), ctx.input(0).shape().ToString(),
                             x.shape().ToString());
    }
    const int64_t rows = c == 0 ? 0 : x.num_elements() / c;
    Tensor* outs[5];
    TFG_ASSIGN_OR_RETURN(outs[0], ctx.allocate_output(0, x.shape()));
    for (int i = 1; i < 5; ++i) {
      TFG_ASSIGN_OR_RETURN(outs[i], ctx.allocate_output(i, TensorShape({c})));
    }
    return nn::DispatchFloat(nn::OpName(ctx), x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatView<C> px(x);
      nn::BatchNormBackward<C>(ctx, params_, px.get(), rows, c, outs);
    });
  }

 private:
  BatchNormParams params_;
};

Status BatchNormGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output dmean, g.OutputGrad(1));
  TFG_ASSIGN_OR_RETURN(Output dvar, g.OutputGrad(2));
  TFG_ASSIGN_OR_RETURN(
      Node * n,
      g.OpNode("batch_norm_grad", {dy, g.input(0), g.input(1), g.input(3), g.input(4), dmean, dvar}, g.node->attrs()));
  const bool* training = g.node->attr<bool>("training");
  const int inputs = training && *training ? 3 : 5;  // training ignores the given mean/variance
  for (int i = 0; i < inputs; ++i) g.input_grads[i] = n->output(i);
  return Status::OK();
}

OpDefBuilder BatchNormAttrs(OpDefBuilder b) {
  b.Attr("epsilon", AttrType::kFloat, 0.001, "added to the variance before the square root")
      .Attr("training", AttrType::kBool, true, "normalise with the batch statistics (else the given ones)")
      .TypeAttr("T", FloatTypes());
  return b;
}

}  // namespace

TFG_REGISTER_OP(BatchNormAttrs(std::move(OpDefBuilder("batch_norm")
                                             .Input("x", "T")
                                             .Input("scale", "T")
                                             .Input("offset", "T")
                                             .Input("mean", "T")
                                             .Input("variance", "T")))
                    .Output("y", "T")
                    .Output("batch_mean", "T")
                    .Output("batch_variance", "T")
                    .SetShapeFn(BatchNormShapeFn)
                    .SetGradFn(BatchNormGrad)
                    .Doc("Batch normalisation over the last dimension: (x - m) * scale / sqrt(v + epsilon) + "
                         "offset. training=true uses the batch's mean and (biased) variance and returns them as "
                         "batch_mean and batch_variance (unbiased); training=false uses the given mean/variance."));
TFG_REGISTER_OP(BatchNormAttrs(std::move(OpDefBuilder("batch_norm_grad")
                                             .Input("dy", "T")
                                             .Input("x", "T")
                                             .Input("scale", "T")
                                             .Input("mean", "T")
                                             .Input("variance", "T")
                                             .Input("dbatch_mean", "T")
                                             .Input("dbatch_variance", "T")))
                    .Output("dx", "T")
                    .Output("dscale", "T")
                    .Output("doffset", "T")
                    .Output("dmean", "T")
                    .Output("dvariance", "T")
                    .SetShapeFn(BatchNormGradShapeFn)
                    .SetGradFn(nn::NoSecondDerivative("batch_norm_grad"))
                    .Doc("The gradient of batch_norm with respect to x, scale, offset, mean and variance (the last "
                         "two zero in training mode), given the gradients of its three outputs."));
TFG_REGISTER_KERNEL(KernelDef("batch_norm", DeviceType::kCpu).Create<BatchNormKernel>());
TFG_REGISTER_KERNEL(KernelDef("batch_norm_grad", DeviceType::kCpu).Create<BatchNormGradKernel>());

}  // namespace tfg
