// sparse_softmax_cross_entropy(logits, labels): per row,
//   loss = lse(logits) - logits[label]
// with integer class labels (i32/i64) of shape logits.shape[:-1]; lse is
// taken after subtracting the row maximum. A label outside [0, classes) is
// an InvalidArgument error naming it, its position and the class count.
//
// Gradient helper (logits only; labels are integers):
//   sparse_softmax_cross_entropy_grad(logits, labels, dloss)
//     = (softmax(logits) - one_hot(labels)) * dloss[..., None]
#include <fmt/ranges.h>

#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/cross_entropy.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn {

Result<CrossEntropyRows> SparseCrossEntropyRows(const std::string& op, const TensorShape& logits,
                                                const TensorShape& labels) {
  TFG_RETURN_IF_ERROR(CheckLogitsRank(op, PartialShape(logits)));
  CrossEntropyRows r = LogitRows(logits);
  if (labels != r.loss) {
    return InvalidArgument("{}: labels must have shape logits.shape[:-1]: logits {}, labels {}", op,
                           logits.ToString(), labels.ToString());
  }
  return r;
}

Status CheckSparseCrossEntropyDloss(const std::string& op, const TensorShape& labels, const TensorShape& dloss) {
  if (dloss == labels) return Status::OK();
  return InvalidArgument("{}: dloss has shape {} but labels have shape {}", op, dloss.ToString(), labels.ToString());
}

}  // namespace tfg::nn

namespace tfg::nn::sparse_softmax_cross_entropy {
namespace {

constexpr const char* kOp = "sparse_softmax_cross_entropy";

// labels.shape must be logits.shape[:-1]; returns it merged.
Result<PartialShape> LabelShape(const std::string& op, const PartialShape& logits, const PartialShape& labels) {
  TFG_RETURN_IF_ERROR(nn::CheckLogitsRank(op, logits));
  if (!logits.known_rank()) return labels;
  const PartialShape rows(std::vector<int64_t>(logits.dims().begin(), logits.dims().end() - 1));
  auto merged = rows.Merge(labels);
  if (!merged.ok()) {
    return InvalidArgument("{}: labels must have shape logits.shape[:-1] = {}: logits {}, labels {}", op,
                           rows.ToString(), logits.ToString(), labels.ToString());
  }
  return *merged;
}

Status LossShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape rows, LabelShape(kOp, c.input(0), c.input(1)));
  c.set_output(0, std::move(rows));
  return Status::OK();
}

Status GradShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(LabelShape(c.op().name, c.input(0), c.input(1)).status());
  c.set_output(0, c.input(0));
  return Status::OK();
}

// The labels as int64, each checked against [0, classes).
template <typename I>
Result<std::vector<int64_t>> ReadLabels(const std::string& op, const Tensor& labels, int64_t classes) {
  std::vector<int64_t> out(static_cast<size_t>(labels.num_elements()));
  const I* v = labels.data<I>();
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<int64_t>(v[i]);
    if (out[i] >= 0 && out[i] < classes) continue;
    std::vector<int64_t> pos(labels.rank());
    int64_t rem = static_cast<int64_t>(i);
    for (int d = labels.rank() - 1; d >= 0; --d) {
      pos[d] = rem % labels.dim(d);
      rem /= labels.dim(d);
    }
    return InvalidArgument("{}: label {} at position [{}] is outside the valid range [0, {}) of the {} classes", op,
                           out[i], fmt::join(pos, ", "), classes, classes);
  }
  return out;
}

// Checks shapes and reads the labels of a run.
Result<std::vector<int64_t>> CheckedLabels(const OpKernelContext& ctx) {
  const std::string& op = nn::OpName(ctx);
  const Tensor& labels = ctx.input(1);
  TFG_ASSIGN_OR_RETURN(nn::CrossEntropyRows r, nn::SparseCrossEntropyRows(op, ctx.input(0).shape(), labels.shape()));
  const int64_t classes = r.classes;
  return labels.dtype() == DType::kI32 ? ReadLabels<int32_t>(op, labels, classes)
                                       : ReadLabels<int64_t>(op, labels, classes);
}

class LossKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> labels, CheckedLabels(ctx));
    const Tensor& logits = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ctx.input(1).shape()));
    const int64_t n = logits.dim(logits.rank() - 1), rows = out->num_elements();
    // No rows: n may be any size the shapes allow, and 30 * n would overflow.
    if (rows == 0) return Status::OK();
    return nn::DispatchFloat(kOp, logits.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatView<C> x(logits);
      nn::FloatOut<C> loss(out);
      const C* px = x.get();
      C* pl = loss.get();
      ctx.ParallelFor(rows, 30 * n + 1, [&](int64_t s, int64_t e) {
        for (int64_t r = s; r < e; ++r) pl[r] = nn::LogSumExp(px + r * n, n) - px[r * n + labels[r]];
      });
      loss.Finish();
    });
  }
};

class GradKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> labels, CheckedLabels(ctx));
    const Tensor& logits = ctx.input(0);
    const Tensor& dloss = ctx.input(2);
    TFG_RETURN_IF_ERROR(nn::CheckSparseCrossEntropyDloss(nn::OpName(ctx), ctx.input(1).shape(), dloss.shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, logits.shape()));
    const int64_t n = logits.dim(logits.rank() - 1), rows = dloss.num_elements();
    if (rows == 0) return Status::OK();  // as in the loss kernel
    return nn::DispatchFloat(nn::OpName(ctx), logits.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatView<C> x(logits), d(dloss);
      nn::FloatOut<C> dx(out);
      const C *px = x.get(), *pd = d.get();
      C* po = dx.get();
      ctx.ParallelFor(rows, 30 * n + 1, [&](int64_t s, int64_t e) {
        for (int64_t r = s; r < e; ++r) {
          nn::ScaledSoftmax(px + r * n, n, nn::LogSumExp(px + r * n, n), C(1), pd[r], po + r * n);
          po[r * n + labels[r]] -= pd[r];
        }
      });
      dx.Finish();
    });
  }
};

Status LossGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dloss, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("sparse_softmax_cross_entropy_grad", {g.input(0), g.input(1), dloss}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("logits", "T")
                    .Input("labels", "Tlabels")
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("Tlabels", {DType::kI32, DType::kI64})
                    .Output("loss", "T")
                    .SetShapeFn(LossShapeFn)
                    .SetGradFn(LossGrad)
                    .Doc("Cross-entropy of softmax(logits) against integer class labels: "
                         "log(sum(exp(logits))) - logits[label] per row. labels has shape logits.shape[:-1]; a "
                         "label outside [0, classes) is an error. Stable for large logits."));
TFG_REGISTER_OP(OpDefBuilder("sparse_softmax_cross_entropy_grad")
                    .Input("logits", "T")
                    .Input("labels", "Tlabels")
                    .Input("dloss", "T")
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("Tlabels", {DType::kI32, DType::kI64})
                    .Output("dlogits", "T")
                    .SetShapeFn(GradShapeFn)
                    .SetGradFn(nn::NoSecondDerivative("sparse_softmax_cross_entropy_grad"))
                    .Doc("The gradient of sparse_softmax_cross_entropy for its logits: "
                         "(softmax(logits) - one_hot(labels)) * dloss[..., None]."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<LossKernel>());
TFG_REGISTER_KERNEL(KernelDef("sparse_softmax_cross_entropy_grad", DeviceType::kCpu).Create<GradKernel>());

}  // namespace tfg::nn::sparse_softmax_cross_entropy
