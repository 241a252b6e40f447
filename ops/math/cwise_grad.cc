// Fused one-pass gradients of the unary math ops whose derivative is
// cheapest written through their output y:
//   relu_grad(dy, y)     dy where y > 0, else 0
//   sigmoid_grad(dy, y)  dy * y * (1 - y)
//   tanh_grad(dy, y)     dy * (1 - y * y)
//   sqrt_grad(dy, y)     dy * 0.5 / y
//   rsqrt_grad(dy, y)    dy * -0.5 * y^3
// Each is linear in dy, so its own gradient for dy is the same op applied to
// the incoming gradient; the table gives the gradient for y. One table; the
// declarations and kernels derive from it (f16 computes in f32).
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"

namespace tfg::math::cwise_grad {
namespace {

using YGradRule = Status (*)(GradContext& g, Output grad, Output dy, Output y, Output* dy_y);

// relu' is piecewise constant: y gets nothing.
Status NoYGrad(GradContext&, Output, Output, Output, Output*) { return Status::OK(); }

// d/dy [dy * y * (1 - y)] = dy * (1 - 2y).
Status SigmoidYGrad(GradContext& g, Output grad, Output dy, Output y, Output* out) {
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, y.dtype()));
  TFG_ASSIGN_OR_RETURN(Output two_y, g.Op("add", {y, y}));
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("sub", {one, two_y}));
  TFG_ASSIGN_OR_RETURN(Output gdy, g.Op("mul", {grad, dy}));
  TFG_ASSIGN_OR_RETURN(*out, g.Op("mul", {gdy, slope}));
  return Status::OK();
}

// d/dy [dy * (1 - y^2)] = -2 * dy * y.
Status TanhYGrad(GradContext& g, Output grad, Output dy, Output y, Output* out) {
  TFG_ASSIGN_OR_RETURN(Output minus_two, g.Scalar(-2, y.dtype()));
  TFG_ASSIGN_OR_RETURN(Output gdy, g.Op("mul", {grad, dy}));
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("mul", {y, minus_two}));
  TFG_ASSIGN_OR_RETURN(*out, g.Op("mul", {gdy, slope}));
  return Status::OK();
}

// d/dy [0.5 * dy / y] = -(0.5 * dy / y) / y: the node's own output over -y.
Status SqrtYGrad(GradContext& g, Output grad, Output, Output y, Output* out) {
  TFG_ASSIGN_OR_RETURN(Output gout, g.Op("mul", {grad, g.output(0)}));
  TFG_ASSIGN_OR_RETURN(Output ratio, g.Op("div", {gout, y}));
  TFG_ASSIGN_OR_RETURN(*out, g.Op("neg", {ratio}));
  return Status::OK();
}

// d/dy [-0.5 * dy * y^3] = -1.5 * dy * y^2.
Status RsqrtYGrad(GradContext& g, Output grad, Output dy, Output y, Output* out) {
  TFG_ASSIGN_OR_RETURN(Output k, g.Scalar(-1.5, y.dtype()));
  TFG_ASSIGN_OR_RETURN(Output gdy, g.Op("mul", {grad, dy}));
  TFG_ASSIGN_OR_RETURN(Output y2, g.Op("square", {y}));
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("mul", {y2, k}));
  TFG_ASSIGN_OR_RETURN(*out, g.Op("mul", {gdy, slope}));
  return Status::OK();
}

template <typename F>
CwiseFns FloatFns() {
  CwiseFns fns;
  fns[DType::kF16] = &ComputeBinary<F, half, half>;
  fns[DType::kF32] = &ComputeBinary<F, float, float>;
  fns[DType::kF64] = &ComputeBinary<F, double, double>;
  return fns;
}

struct GradOp {
  const char* name;
  CwiseFns fns;
  int64_t cost;
  YGradRule y_grad;
  const char* doc;
};

const GradOp kGradOps[] = {
    {"relu_grad", FloatFns<functor::ReluGrad>(), 1, NoYGrad, "The gradient of relu: dy where y > 0, else 0."},
    {"sigmoid_grad", FloatFns<functor::SigmoidGrad>(), 2, SigmoidYGrad,
     "The gradient of sigmoid through its output y: dy * y * (1 - y)."},
    {"tanh_grad", FloatFns<functor::TanhGrad>(), 2, TanhYGrad,
     "The gradient of tanh through its output y: dy * (1 - y * y)."},
    {"sqrt_grad", FloatFns<functor::SqrtGrad>(), 8, SqrtYGrad,
     "The gradient of sqrt through its output y: dy * 0.5 / y."},
    {"rsqrt_grad", FloatFns<functor::RsqrtGrad>(), 3, RsqrtYGrad,
     "The gradient of rsqrt through its output y: dy * -0.5 * y ** 3."},
};

// The op is linear in dy (so dy's gradient is the op itself applied to the
// incoming gradient); y's comes from the table.
GradFn SecondDerivative(const GradOp& op) {
  return [name = std::string(op.name), y_grad = op.y_grad](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(name, {grad, g.input(1)}));
    return y_grad(g, grad, g.input(0), g.input(1), &g.input_grads[1]);
  };
}

[[maybe_unused]] const bool kRegistered = [] {
  for (const GradOp& op : kGradOps) {
    OpDefBuilder b(op.name);
    b.Input("dy", "T").Input("y", "T").Output("dx", "T").TypeAttr("T", FloatTypes());
    b.SetShapeFn(BroadcastShapeFn).SetGradFn(SecondDerivative(op)).Doc(op.doc);
    OpRegistrar reg(std::move(b));
    KernelRegistrar kernel(KernelDef(op.name, DeviceType::kCpu).Factory(CwiseFactory(op.fns, op.cost)));
  }
  return true;
}();

}  // namespace
}  // namespace tfg::math::cwise_grad
