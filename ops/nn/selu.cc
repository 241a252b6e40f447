// selu(x) = scale * x for x > 0, scale * alpha * (exp(x) - 1) otherwise, with
// Klambauer et al.'s scale and alpha (tf.nn.selu). CPU kernel only (no GPU
// kernel yet). Gradient, as TensorFlow's SeluGrad, read from y: dy * scale
// where y >= 0 and dy * (y + scale * alpha) where y < 0 (so at x = 0 the
// slope is scale, as in TensorFlow).
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_special_functors.h"

namespace tfg::nn::selu {
namespace {

CwiseFns SeluFns() {
  CwiseFns fns;
  AddUnary<functor::Selu, half>(fns);
  AddUnary<functor::Selu, float>(fns);
  AddUnary<functor::Selu, double>(fns);
  return fns;
}

Status SeluGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const Output y = g.output(0);
  const DType t = y.dtype();
  TFG_ASSIGN_OR_RETURN(Output zero, g.Scalar(0, t));
  TFG_ASSIGN_OR_RETURN(Output scale, g.Scalar(functor::kSeluScale, t));
  TFG_ASSIGN_OR_RETURN(Output scale_alpha, g.Scalar(functor::kSeluScale * functor::kSeluAlpha, t));
  TFG_ASSIGN_OR_RETURN(Output negative, g.Op("less", {y, zero}));
  TFG_ASSIGN_OR_RETURN(Output neg_slope, g.Op("add", {y, scale_alpha}));
  TFG_ASSIGN_OR_RETURN(Output neg_grad, g.Op("mul", {dy, neg_slope}));
  TFG_ASSIGN_OR_RETURN(Output pos_grad, g.Op("mul", {dy, scale}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("where", {negative, neg_grad, pos_grad}));
  return Status::OK();
}

[[maybe_unused]] const bool kRegistered = [] {
  OpRegistrar reg(OpDefBuilder("selu")
                      .Input("x", "T")
                      .Output("y", "T")
                      .TypeAttr("T", FloatTypes())
                      .SetShapeFn(SameShapeFn)
                      .SetGradFn(SeluGrad)
                      .Doc("Scaled exponential linear unit (tf.nn.selu): scale * x for x > 0, scale * alpha * "
                           "(exp(x) - 1) otherwise, scale = 1.0507009873554805, alpha = 1.6732632423543772."));
  RegisterCwiseKernel("selu", SeluFns(), 20);
  return true;
}();

}  // namespace
}  // namespace tfg::nn::selu
