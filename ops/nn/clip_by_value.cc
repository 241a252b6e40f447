// clip_by_value(t, clip_value_min, clip_value_max): minimum(maximum(t, min),
// max) elementwise, with min and max broadcasting to t's shape (scalars
// usually); the output has t's shape. NaN stays NaN. The scalar math is
// functor::ClipByValue, which the fused kernel's loop uses too
// (ops/math/fused/block_ops_impl.h), so fused and unfused agree bit for bit.
//
// Gradient helper, as TensorFlow 2 defines it:
//   clip_by_value_grad(dy, t, min, max) -> [dt, dmin, dmax], each t-shaped:
//   dy where min <= t <= max (for t), where t < min (for min), where t > max
//   (for max), 0 elsewhere; dmin/dmax are then summed to the bounds' shapes.
#include "ops/autodiff/gradients.h"
#include "ops/core/forward_input.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_functors.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace {

constexpr const char* kOp = "clip_by_value";

Status ClipShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  const int t = op == kOp ? 0 : 1;  // the grad op's inputs are (dy, t, min, max)
  for (int i : {t + 1, t + 2}) {
    auto b = BroadcastShapes(c.input(t), c.input(i));
    if (!b.ok() || (c.input(t).known_rank() && b->known_rank() && b->rank() != c.input(t).rank())) {
      return InvalidArgument("{}: {} of shape {} does not broadcast to t's shape {}", op,
                             i == t + 1 ? "clip_value_min" : "clip_value_max", c.input(i).ToString(),
                             c.input(t).ToString());
    }
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input(t));
  return Status::OK();
}

// Checks that the bounds broadcast to t exactly (t's shape wins).
Status CheckBounds(const OpKernelContext& ctx, int t) {
  for (int i : {t + 1, t + 2}) {
    auto b = BroadcastShapes(ctx.input(t).shape(), ctx.input(i).shape());
    if (!b.ok() || *b != ctx.input(t).shape()) {
      return InvalidArgument("{}: {} of shape {} does not broadcast to t's shape {}", nn::OpName(ctx),
                             i == t + 1 ? "clip_value_min" : "clip_value_max", ctx.input(i).shape().ToString(),
                             ctx.input(t).shape().ToString());
    }
  }
  return Status::OK();
}

// Calls fn(i, lo, hi) for every element i of `t` with the flat indices of
// its bounds, in parallel.
template <typename Fn>
void ForEachElement(const OpKernelContext& ctx, const TensorShape& t, const TensorShape& lo, const TensorShape& hi,
                    Fn fn) {
  const BroadcastPlan plan(t, {&t, &lo, &hi});
  const int64_t sl = plan.inner_stride(1), sh = plan.inner_stride(2);
  ctx.ParallelFor(t.num_elements(), 4, [&](int64_t s, int64_t e) {
    plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
      for (int64_t j = 0; j < len; ++j) fn(o + j, off[1] + j * sl, off[2] + j * sh);
    });
  });
}

class ClipKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_RETURN_IF_ERROR(CheckBounds(ctx, 0));
    const Tensor& t = ctx.input(0);
    // In t's buffer when it is dead after this op (forward_input.h).
    TFG_ASSIGN_OR_RETURN(Tensor * out, ForwardInputOrAllocate(ctx, {0}, 0, t.shape()));
    bool ok = TFG_DISPATCH_NUMBER(t.dtype(), T, {
      const T *x = t.data<T>(), *lo = ctx.input(1).data<T>(), *hi = ctx.input(2).data<T>();
      T* y = out->data<T>();
      const functor::ClipByValue clip{};
      ForEachElement(ctx, t.shape(), ctx.input(1).shape(), ctx.input(2).shape(),
                     [&](int64_t i, int64_t l, int64_t h) { y[i] = clip(x[i], lo[l], hi[h]); });
    });
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(t.dtype()));
    return Status::OK();
  }
};

class ClipGradKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_RETURN_IF_ERROR(CheckBounds(ctx, 1));
    const Tensor& t = ctx.input(1);
    if (ctx.input(0).shape() != t.shape()) {
      return InvalidArgument("{}: dy has shape {} but t has shape {}", nn::OpName(ctx), ctx.input(0).shape().ToString(),
                             t.shape().ToString());
    }
    Tensor* outs[3];
    for (int i = 0; i < 3; ++i) {
      TFG_ASSIGN_OR_RETURN(outs[i], ctx.allocate_output(i, t.shape()));
    }
    bool ok = TFG_DISPATCH_NUMBER(t.dtype(), T, {
      const T *dy = ctx.input(0).data<T>(), *x = t.data<T>();
      const T *lo = ctx.input(2).data<T>(), *hi = ctx.input(3).data<T>();
      T *dt = outs[0]->data<T>(), *dlo = outs[1]->data<T>(), *dhi = outs[2]->data<T>();
      ForEachElement(ctx, t.shape(), ctx.input(2).shape(), ctx.input(3).shape(), [&](int64_t i, int64_t l, int64_t h) {
        const bool below = x[i]<lo[l], above = x[i]> hi[h];
        dt[i] = below || above ? T(0) : dy[i];
        dlo[i] = below ? dy[i] : T(0);
        dhi[i] = above ? dy[i] : T(0);
      });
    });
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", nn::OpName(ctx), DTypeName(t.dtype()));
    return Status::OK();
  }
};

Status ClipGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Node * n, g.OpNode("clip_by_value_grad", {dy, g.input(0), g.input(1), g.input(2)}));
  g.input_grads[0] = n->output(0);
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Unbroadcast(n->output(1), g.input(1)));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Unbroadcast(n->output(2), g.input(2)));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("t", "T")
                    .Input("clip_value_min", "T")
                    .Input("clip_value_max", "T")
                    .TypeAttr("T", NumberTypes())
                    .Output("output", "T")
                    .SetShapeFn(ClipShapeFn)
                    .SetGradFn(ClipGrad)
                    .Doc("minimum(maximum(t, clip_value_min), clip_value_max) elementwise; the bounds broadcast "
                         "to t's shape. The gradient passes where clip_value_min <= t <= clip_value_max."));
TFG_REGISTER_OP(OpDefBuilder("clip_by_value_grad")
                    .Input("dy", "T")
                    .Input("t", "T")
                    .Input("clip_value_min", "T")
                    .Input("clip_value_max", "T")
                    .TypeAttr("T", NumberTypes())
                    .Output("dt", "T")
                    .Output("dmin", "T")
                    .Output("dmax", "T")
                    .SetShapeFn(ClipShapeFn)
                    .SetGradFn(nn::NoSecondDerivative("clip_by_value_grad"))
                    .Doc("The gradient of clip_by_value: dy split by where t lies — inside the bounds (dt), "
                         "below (dmin) or above (dmax) — each of t's shape."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<ClipKernel>());
TFG_REGISTER_KERNEL(KernelDef("clip_by_value_grad", DeviceType::kCpu).Create<ClipGradKernel>());

}  // namespace tfg
