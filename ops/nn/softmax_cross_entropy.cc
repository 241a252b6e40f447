// softmax_cross_entropy_with_logits(logits, labels): per row,
//   loss = -sum_j labels_j * log_softmax(logits)_j
// over the last (class) dimension; output shape logits.shape[:-1]. Computed
// as sum_j labels_j * (lse - logits_j) with lse = log(sum(exp(logits))) taken
// after subtracting the row maximum, so huge logits are exact. A zero label
// contributes nothing even where its logit is -inf.
//
// Gradient helper (one fused pass):
//   softmax_cross_entropy_grad(logits, labels, dloss)
//     = (sum(labels) * softmax(logits) - labels) * dloss
// which is TensorFlow's (softmax - labels) * dloss when each row of labels
// is a distribution, and the exact derivative otherwise. The gradient for
// labels, -log_softmax(logits) * dloss, is built from ordinary ops so it
// costs nothing unless used.
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/cross_entropy.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn {

Result<CrossEntropyRows> DenseCrossEntropyRows(const std::string& op, const TensorShape& logits,
                                               const TensorShape& labels) {
  TFG_RETURN_IF_ERROR(CheckLogitsRank(op, PartialShape(logits)));
  if (logits != labels) {
    return InvalidArgument("{}: labels must have the shape of logits: logits {}, labels {}", op, logits.ToString(),
                           labels.ToString());
  }
  return LogitRows(logits);
}

// Rows are counted as the kernels count them: none when there are no
// classes.
Status CheckDenseCrossEntropyDloss(const std::string& op, const TensorShape& logits, const TensorShape& dloss) {
  const int64_t n = logits.dim(logits.rank() - 1);
  const int64_t rows = n == 0 ? 0 : logits.num_elements() / n;
  if (dloss.num_elements() == rows && dloss.rank() == logits.rank() - 1) return Status::OK();
  return InvalidArgument("{}: dloss has shape {} but logits {} give {} losses", op, dloss.ToString(),
                         logits.ToString(), rows);
}

}  // namespace tfg::nn

namespace tfg::nn::softmax_cross_entropy {
namespace {

constexpr const char* kOp = "softmax_cross_entropy_with_logits";

Result<PartialShape> MergedLogits(const std::string& op, const PartialShape& logits, const PartialShape& labels) {
  TFG_RETURN_IF_ERROR(nn::CheckLogitsRank(op, logits));
  auto merged = logits.Merge(labels);
  if (!merged.ok()) {
    return InvalidArgument("{}: labels must have the shape of logits: logits {}, labels {}", op, logits.ToString(),
                           labels.ToString());
  }
  // Unknown logits take their rank from labels: a scalar label is as wrong
  // as a scalar logit.
  TFG_RETURN_IF_ERROR(nn::CheckLogitsRank(op, *merged));
  return *merged;
}

Status LossShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape merged, MergedLogits(kOp, c.input(0), c.input(1)));
  if (!merged.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  c.set_output(0, PartialShape(std::vector<int64_t>(merged.dims().begin(), merged.dims().end() - 1)));
  return Status::OK();
}

Status GradShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape merged, MergedLogits(c.op().name, c.input(0), c.input(1)));
  c.set_output(0, std::move(merged));
  return Status::OK();
}

template <typename C>
void LossRows(const OpKernelContext& ctx, const C* x, const C* labels, C* loss, int64_t rows, int64_t n) {
  ctx.ParallelFor(rows, 30 * n + 1, [=](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      const C* xr = x + r * n;
      const C* lr = labels + r * n;
      const C lse = n > 0 ? nn::LogSumExp(xr, n) : C(0);
      C acc = 0;
      for (int64_t j = 0; j < n; ++j) {
        if (lr[j] != C(0)) acc += lr[j] * (lse - xr[j]);
      }
      loss[r] = acc;
    }
  });
}

template <typename C>
void GradRows(const OpKernelContext& ctx, const C* x, const C* labels, const C* dloss, C* dx, int64_t rows, int64_t n) {
  ctx.ParallelFor(rows, 30 * n + 1, [=](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      if (n == 0) continue;
      const C* lr = labels + r * n;
      C weight = 0;
      for (int64_t j = 0; j < n; ++j) weight += lr[j];
      nn::ScaledSoftmax(x + r * n, n, nn::LogSumExp(x + r * n, n), weight, dloss[r], dx + r * n);
      for (int64_t j = 0; j < n; ++j) dx[r * n + j] -= lr[j] * dloss[r];
    }
  });
}

class LossKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::CrossEntropyRows r,
                         nn::DenseCrossEntropyRows(nn::OpName(ctx), logits.shape(), ctx.input(1).shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, r.loss));
    const int64_t n = r.classes, rows = r.rows;
    // No rows: the class count may be one only an empty batch allows, too
    // large for the work estimate 30 * classes.
    if (rows == 0) return Status::OK();
    return nn::DispatchFloat(kOp, logits.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> loss(out);
      LossRows<C>(ctx, nn::FloatView<C>(logits).get(), nn::FloatView<C>(ctx.input(1)).get(), loss.get(), rows, n);
      loss.Finish();
    });
  }
};

class GradKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::CrossEntropyRows r,
                         nn::DenseCrossEntropyRows(nn::OpName(ctx), logits.shape(), ctx.input(1).shape()));
    TFG_RETURN_IF_ERROR(nn::CheckDenseCrossEntropyDloss(nn::OpName(ctx), logits.shape(), ctx.input(2).shape()));
    const int64_t n = r.classes, rows = n == 0 ? 0 : logits.num_elements() / n;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, logits.shape()));
    if (rows == 0) return Status::OK();  // as in the loss kernel
    return nn::DispatchFloat(nn::OpName(ctx), logits.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> dx(out);
      GradRows<C>(ctx, nn::FloatView<C>(logits).get(), nn::FloatView<C>(ctx.input(1)).get(),
                  nn::FloatView<C>(ctx.input(2)).get(), dx.get(), rows, n);
      dx.Finish();
    });
  }
};

Status LossGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dloss, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("softmax_cross_entropy_grad", {g.input(0), g.input(1), dloss}));
  TFG_ASSIGN_OR_RETURN(Output log_softmax, g.Op("log_softmax", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(Output minus, g.Op("neg", {log_softmax}));
  TFG_ASSIGN_OR_RETURN(Output column, g.Op("expand_dims", {dloss}, {{"axis", int64_t{-1}}}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("mul", {minus, column}));
  return Status::OK();
}

}  // namespace
TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("logits", "T")
                    .Input("labels", "T")
                    .TypeAttr("T", FloatTypes())
                    .Output("loss", "T")
                    .SetShapeFn(LossShapeFn)
                    .SetGradFn(LossGrad)
                    .Doc("Cross-entropy of softmax(logits) against the distributions `labels` (same shape), over "
                         "the last dimension: -sum(labels * log_softmax(logits)). Output shape logits.shape[:-1]. "
                         "Stable for large logits."));
TFG_REGISTER_OP(OpDefBuilder("softmax_cross_entropy_grad")
                    .Input("logits", "T")
                    .Input("labels", "T")
                    .Input("dloss", "T")
                    .TypeAttr("T", FloatTypes())
                    .Output("dlogits", "T")
                    .SetShapeFn(GradShapeFn)
                    .SetGradFn(nn::NoSecondDerivative("softmax_cross_entropy_grad"))
                    .Doc("The gradient of softmax_cross_entropy_with_logits for its logits: "
                         "(sum(labels) * softmax(logits) - labels) * dloss[..., None]."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<LossKernel>());
TFG_REGISTER_KERNEL(KernelDef("softmax_cross_entropy_grad", DeviceType::kCpu).Create<GradKernel>());

}  // namespace tfg::nn::softmax_cross_entropy
