// Fused gradients of softmax and log_softmax along `axis`, from the forward
// output y (one pass over each line, no temporaries):
//   softmax_grad(dy, y)      dx = y * (dy - sum(dy * y))
//   log_softmax_grad(dy, y)  dx = dy - exp(y) * sum(dy)
// Their own gradients (second derivatives) are composed from math ops.
#include <cmath>
#include <string>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg::math::softmax_grad {
namespace {

int64_t AxisAttr(const AttrMap& attrs) {
  const int64_t* axis = FindAttr<int64_t>(attrs, "axis");
  return axis ? *axis : -1;
}

Result<int> ResolveAxis(const std::string& op, const PartialShape& shape, int64_t axis) {
  const int rank = shape.rank();
  if (rank == 0) return InvalidArgument("{}: y must have rank >= 1, got a scalar", op);
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("{}: axis {} is out of range for rank {} (y has shape {})", op, axis, rank,
                           shape.ToString());
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status GradShapeFn(ShapeContext& c) {
  auto r = c.input(0).Merge(c.input(1));
  if (!r.ok()) {
    return InvalidArgument("{}: dy has shape {} but y has shape {}", c.op().name, c.input(0).ToString(),
                           c.input(1).ToString());
  }
  const PartialShape& merged = *r;
  if (merged.known_rank()) TFG_RETURN_IF_ERROR(ResolveAxis(c.op().name, merged, AxisAttr(c.attrs())).status());
  c.set_output(0, merged);
  return Status::OK();
}

// One line of n elements `stride` apart, in compute type C.
template <bool kLog, typename C, typename T>
inline void GradLine(const T* dy, const T* y, T* dx, int64_t n, int64_t stride) {
  C s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const C d = static_cast<C>(dy[i * stride]);
    s += kLog ? d : d * static_cast<C>(y[i * stride]);
  }
  for (int64_t i = 0; i < n; ++i) {
    const C d = static_cast<C>(dy[i * stride]), v = static_cast<C>(y[i * stride]);
    dx[i * stride] = static_cast<T>(kLog ? d - std::exp(v) * s : v * (d - s));
  }
}

template <bool kLog, typename C, typename T>
void GradLines(const OpKernelContext& ctx, const Tensor& dy, const Tensor& y, Tensor* dx, int axis) {
  const int64_t n = y.dim(axis);
  int64_t inner = 1;
  for (int d = axis + 1; d < y.rank(); ++d) inner *= y.dim(d);
  const T* pdy = dy.data<T>();
  const T* py = y.data<T>();
  T* pdx = dx->data<T>();
  ctx.ParallelFor(y.num_elements() / n, 6 * n, [=](int64_t s, int64_t e) {
    for (int64_t l = s; l < e; ++l) {
      const int64_t off = (l / inner) * n * inner + l % inner;
      if (inner == 1) {
        GradLine<kLog, C>(pdy + off, py + off, pdx + off, n, 1);
      } else {
        GradLine<kLog, C>(pdy + off, py + off, pdx + off, n, inner);
      }
    }
  });
}

template <bool kLog>
class SoftmaxGradKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    axis_ = AxisAttr(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& dy = ctx.input(0);
    const Tensor& y = ctx.input(1);
    const std::string& op = ctx.info().op->name;
    if (dy.shape() != y.shape()) {
      return InvalidArgument("{}: dy has shape {} but y has shape {}", op, dy.shape().ToString(),
                             y.shape().ToString());
    }
    TFG_ASSIGN_OR_RETURN(int axis, ResolveAxis(op, PartialShape(y.shape()), axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, y.shape()));
    if (y.num_elements() == 0) return Status::OK();
    switch (y.dtype()) {
      case DType::kF16: GradLines<kLog, float, half>(ctx, dy, y, dx, axis); break;
      case DType::kF32: GradLines<kLog, float, float>(ctx, dy, y, dx, axis); break;
      case DType::kF64: GradLines<kLog, double, double>(ctx, dy, y, dx, axis); break;
      default: return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(y.dtype()));
    }
    return Status::OK();
  }

 private:
  int64_t axis_ = -1;
};

// sum(v, axis, keepdims=true): the per-line totals, broadcastable back.
Result<Output> LineSum(GradContext& g, Output v) {
  return g.Op("sum", {v}, {{"axis", std::vector<int64_t>{AxisAttr(g.node->attrs())}}, {"keepdims", true}});
}

// dx = J dy with J = diag(y) - y yᵀ, symmetric: dy's gradient is J G. For
// y: d dx_i / d y_k = δ_ik (dy_i - s) - y_i dy_k, so y gets
// G * (dy - s) - dy * sum(G * y).
Status SoftmaxGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const Output dy = g.input(0), y = g.input(1);
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("softmax_grad", {grad, y}, {{"axis", AxisAttr(g.node->attrs())}}));
  TFG_ASSIGN_OR_RETURN(Output dy_y, g.Op("mul", {dy, y}));
  TFG_ASSIGN_OR_RETURN(Output s, LineSum(g, dy_y));
  TFG_ASSIGN_OR_RETURN(Output grad_y, g.Op("mul", {grad, y}));
  TFG_ASSIGN_OR_RETURN(Output t, LineSum(g, grad_y));
  TFG_ASSIGN_OR_RETURN(Output centered, g.Op("sub", {dy, s}));
  TFG_ASSIGN_OR_RETURN(Output first, g.Op("mul", {grad, centered}));
  TFG_ASSIGN_OR_RETURN(Output second, g.Op("mul", {dy, t}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("sub", {first, second}));
  return Status::OK();
}

// dx = dy - exp(y) * S with S = sum(dy): dy gets G - sum(G * exp(y)), and
// y gets -G * exp(y) * S.
Status LogSoftmaxGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const Output dy = g.input(0), y = g.input(1);
  TFG_ASSIGN_OR_RETURN(Output p, g.Op("exp", {y}));
  TFG_ASSIGN_OR_RETURN(Output grad_p, g.Op("mul", {grad, p}));
  TFG_ASSIGN_OR_RETURN(Output t, LineSum(g, grad_p));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("sub", {grad, t}));
  TFG_ASSIGN_OR_RETURN(Output s, LineSum(g, dy));
  TFG_ASSIGN_OR_RETURN(Output scaled, g.Op("mul", {grad_p, s}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("neg", {scaled}));
  return Status::OK();
}

OpDefBuilder GradOp(const char* name, GradFn grad, const char* doc) {
  OpDefBuilder b(name);
  b.Input("dy", "T")
      .Input("y", "T")
      .Attr("axis", AttrType::kInt, int64_t{-1}, "the axis the forward op normalized over")
      .TypeAttr("T", FloatTypes())
      .Output("dx", "T")
      .SetShapeFn(GradShapeFn)
      .SetGradFn(std::move(grad))
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(GradOp("softmax_grad", SoftmaxGradGrad,
                       "The gradient of softmax through its output y: y * (dy - sum(dy * y)) along `axis`."));
TFG_REGISTER_OP(GradOp("log_softmax_grad", LogSoftmaxGradGrad,
                       "The gradient of log_softmax through its output y: dy - exp(y) * sum(dy) along `axis`."));
TFG_REGISTER_KERNEL(KernelDef("softmax_grad", DeviceType::kCpu).Create<SoftmaxGradKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef("log_softmax_grad", DeviceType::kCpu).Create<SoftmaxGradKernel<true>>());

}  // namespace tfg::math::softmax_grad
