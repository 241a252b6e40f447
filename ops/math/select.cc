// where(cond, x, y): x where cond is true, else y; all three broadcast
// NumPy-style.
#include "ops/autodiff/gradients.h"
#include "ops/core/forward_input.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"

namespace tfg {
namespace {

// out[i] = c[i*sc] ? x[i*sx] : y[i*sy], strides in {0, 1}.
template <typename T>
void SelectRun(const bool* c, int64_t sc, const T* x, int64_t sx, const T* y, int64_t sy, T* out, int64_t n) {
  if (sc == 1 && sx == 1 && sy == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? x[i] : y[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i * sc] ? x[i * sx] : y[i * sy];
  }
}

template <typename T>
Status ComputeSelect(OpKernelContext& ctx, int64_t cost) {
  const Tensor& cond = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  TFG_ASSIGN_OR_RETURN(TensorShape cx, BroadcastForOp(ctx, cond.shape(), x.shape()));
  TFG_ASSIGN_OR_RETURN(TensorShape shape, BroadcastForOp(ctx, cx, y.shape()));
  // x's or y's buffer when it is dead after this op (forward_input.h): each
  // element is read before the same one is written.
  TFG_ASSIGN_OR_RETURN(Tensor * out, ForwardInputOrAllocate(ctx, {1, 2}, 0, shape));
  const int64_t n = out->num_elements();
  if (n == 0) return Status::OK();
  const bool* pc = cond.data<bool>();
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  T* po = out->data<T>();
  if (cond.num_elements() == n && x.num_elements() == n && y.num_elements() == n) {
    ctx.ParallelFor(n, cost, [=](int64_t s, int64_t e) { SelectRun(pc + s, 1, px + s, 1, py + s, 1, po + s, e - s); });
    return Status::OK();
  }
  const BroadcastPlan plan(shape, {&cond.shape(), &x.shape(), &y.shape()});
  const int64_t sc = plan.inner_stride(0), sx = plan.inner_stride(1), sy = plan.inner_stride(2);
  ctx.ParallelFor(n, cost, [&](int64_t s, int64_t e) {
    plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
      SelectRun(pc + off[0], sc, px + off[1], sx, py + off[2], sy, po + o, len);
    });
  });
  return Status::OK();
}

CwiseFns SelectFns() {
  CwiseFns fns;
  fns[DType::kF16] = &ComputeSelect<half>;
  fns[DType::kF32] = &ComputeSelect<float>;
  fns[DType::kF64] = &ComputeSelect<double>;
  fns[DType::kI32] = &ComputeSelect<int32_t>;
  fns[DType::kI64] = &ComputeSelect<int64_t>;
  fns[DType::kBool] = &ComputeSelect<bool>;
  fns[DType::kString] = &ComputeSelect<std::string>;
  return fns;
}

// The gradient goes to x where cond holds and to y elsewhere, each summed
// back over the dims it was broadcast along; cond gets none.
Status WhereGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dz, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output zero, g.Scalar(0, dz.dtype()));
  TFG_ASSIGN_OR_RETURN(Output gx, g.Op("where", {g.input(0), dz, zero}));
  TFG_ASSIGN_OR_RETURN(Output gy, g.Op("where", {g.input(0), zero, dz}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Unbroadcast(gx, g.input(1)));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Unbroadcast(gy, g.input(2)));
  return Status::OK();
}

TFG_REGISTER_OP(OpDefBuilder("where")
                    .Input("cond", "bool")
                    .Input("x", "T")
                    .Input("y", "T")
                    .Output("z", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(BroadcastShapeFn)
                    .SetGradFn(WhereGrad)
                    .Doc("Elementwise x where cond is true, else y; cond, x and y broadcast together. where(cond) "
                         "alone is argwhere(cond): the coordinates of the true elements, as TensorFlow's "
                         "one-argument tf.where."));
TFG_REGISTER_KERNEL(KernelDef("where", DeviceType::kCpu).Factory(CwiseFactory(SelectFns(), 2, /*dispatch_input=*/1)));

}  // namespace
}  // namespace tfg
