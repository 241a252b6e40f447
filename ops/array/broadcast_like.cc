// broadcast_like(x, like): x broadcast NumPy-style to the run-time shape of
// `like` — the adjoint of unbroadcast, so the two are each other's
// gradients (second derivatives through broadcasting binary ops).
#include <string>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"

namespace tfg {
namespace {

Status BroadcastLikeShapeFn(ShapeContext& c) {
  auto r = BroadcastShapes(c.input(0), c.input(1));
  if (!r.ok() || !r->CompatibleWith(c.input(1))) {
    return InvalidArgument("broadcast_like: x of shape {} does not broadcast to shape {}", c.input(0).ToString(),
                           c.input(1).ToString());
  }
  c.set_output(0, c.input(1));
  return Status::OK();
}

template <typename T>
void Broadcast(const OpKernelContext& ctx, const Tensor& x, Tensor* out) {
  const BroadcastPlan plan(out->shape(), {&x.shape()});
  const int64_t sx = plan.inner_stride(0);
  const T* px = x.data<T>();
  T* po = out->data<T>();
  ctx.ParallelFor(out->num_elements(), 1, [&](int64_t s, int64_t e) {
    plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
      for (int64_t j = 0; j < len; ++j) po[o + j] = px[off[0] + j * sx];
    });
  });
}

class BroadcastLikeKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const TensorShape& like = ctx.input(1).shape();
    if (x.shape() == like) {
      ctx.set_output(0, x);
      return Status::OK();
    }
    auto r = BroadcastShapes(x.shape(), like);
    if (!r.ok() || *r != like) {
      return InvalidArgument("broadcast_like: x of shape {} does not broadcast to shape {}", x.shape().ToString(),
                             like.ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, like));
    if (out->num_elements() == 0) return Status::OK();
    switch (x.dtype()) {
      case DType::kF16: Broadcast<half>(ctx, x, out); break;
      case DType::kF32: Broadcast<float>(ctx, x, out); break;
      case DType::kF64: Broadcast<double>(ctx, x, out); break;
      default: return Unimplemented("broadcast_like: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    }
    return Status::OK();
  }
};

// Summing back over the broadcast dims is the adjoint; `like` only lends
// its shape.
Status BroadcastLikeGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("unbroadcast", {grad, g.input(0)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("broadcast_like")
                    .Input("x", "T")
                    .Input("like", "T")
                    .Output("y", "T")
                    .TypeAttr("T", FloatTypes())
                    .SetShapeFn(BroadcastLikeShapeFn)
                    .SetGradFn(BroadcastLikeGrad)
                    .Doc("x broadcast NumPy-style to the shape of `like` (whose values are not read): the "
                         "adjoint of unbroadcast."));
TFG_REGISTER_KERNEL(KernelDef("broadcast_like", DeviceType::kCpu).Create<BroadcastLikeKernel>());

}  // namespace tfg
