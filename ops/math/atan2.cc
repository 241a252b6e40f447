// atan2(y, x): the angle of the point (x, y), in (-pi, pi], elementwise with
// NumPy broadcasting (tf.math.atan2; y first, as TensorFlow and C). CPU
// kernel only (no GPU kernel yet). Gradient, as TensorFlow's _Atan2Grad:
//   d/dy = x / (x^2 + y^2),  d/dx = -y / (x^2 + y^2)
// each summed back to its input's shape; at (0, 0) both are NaN, as there.
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_special_functors.h"

namespace tfg::math::atan2_op {
namespace {

CwiseFns Atan2Fns() {
  CwiseFns fns;
  AddBinary<functor::Atan2, half, half>(fns);
  AddBinary<functor::Atan2, float, float>(fns);
  AddBinary<functor::Atan2, double, double>(fns);
  return fns;
}

Status Atan2Grad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dz, g.OutputGrad(0));
  const Output y = g.input(0), x = g.input(1);
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  TFG_ASSIGN_OR_RETURN(Output y2, g.Op("square", {y}));
  TFG_ASSIGN_OR_RETURN(Output r2, g.Op("add", {x2, y2}));
  TFG_ASSIGN_OR_RETURN(Output scale, g.Op("div", {dz, r2}));
  TFG_ASSIGN_OR_RETURN(Output gy, g.Op("mul", {scale, x}));
  TFG_ASSIGN_OR_RETURN(Output y_scaled, g.Op("mul", {scale, y}));
  TFG_ASSIGN_OR_RETURN(Output gx, g.Op("neg", {y_scaled}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Unbroadcast(gy, y));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Unbroadcast(gx, x));
  return Status::OK();
}

[[maybe_unused]] const bool kRegistered = [] {
  OpRegistrar reg(OpDefBuilder("atan2")
                      .Input("y", "T")
                      .Input("x", "T")
                      .Output("z", "T")
                      .TypeAttr("T", FloatTypes())
                      .SetShapeFn(BroadcastShapeFn)
                      .SetGradFn(Atan2Grad)
                      .Doc("The angle of the point (x, y) in (-pi, pi], elementwise with NumPy broadcasting "
                           "(tf.math.atan2: y first). Gradient: x / (x^2 + y^2) for y, -y / (x^2 + y^2) for x."));
  RegisterCwiseKernel("atan2", Atan2Fns(), 40);
  return true;
}();

}  // namespace
}  // namespace tfg::math::atan2_op
