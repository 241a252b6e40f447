// gelu(x, approximate=false): the Gaussian error linear unit as tf.nn.gelu,
// x * Phi(x) with Phi the standard normal CDF, written as TensorFlow writes
// it: 0.5 x erfc(-x / sqrt(2)); approximate=true takes the tanh form
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). CPU kernel only (no GPU
// kernel yet). The gradient is the derivative of the chosen form, built
// from registry ops so it differentiates again.
#include <cmath>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_special_functors.h"
#include "ops/math/cwise_unary_util.h"

namespace tfg::nn::gelu {
namespace {

constexpr double kSqrtTwoOverPi = 0.79788456080286535588;
constexpr double kInvSqrtTwo = 0.70710678118654752440;
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;
constexpr double kCubic = 0.044715;

bool Approximate(const AttrMap& attrs) {
  const bool* a = FindAttr<bool>(attrs, "approximate");
  return a != nullptr && *a;
}

class GeluKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    static const CwiseFns exact = FloatUnaryFns<functor::GeluExact>(), tanh_form = FloatUnaryFns<functor::GeluTanh>();
    const CwiseFns& fns = Approximate(*c.attrs) ? tanh_form : exact;
    const DType dtype = c.input_types.empty() ? DType::kString : c.input_types[0];
    fn_ = fns[dtype];
    if (fn_ == nullptr) return Unimplemented("gelu: no CPU kernel for dtype {}", DTypeName(dtype));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override { return fn_(ctx, 40); }

 private:
  CwiseFn fn_ = nullptr;
};

// d/dx x Phi(x) = Phi(x) + x phi(x) = 0.5 erfc(-x / sqrt(2)) + x exp(-x^2 / 2) / sqrt(2 pi).
Result<Output> ExactSlope(GradContext& g, Output x) {
  const DType t = x.dtype();
  TFG_ASSIGN_OR_RETURN(Output one_half, g.Scalar(0.5, t));
  TFG_ASSIGN_OR_RETURN(Output neg_inv_sqrt2, g.Scalar(-kInvSqrtTwo, t));
  TFG_ASSIGN_OR_RETURN(Output inv_sqrt2pi, g.Scalar(kInvSqrtTwoPi, t));
  TFG_ASSIGN_OR_RETURN(Output scaled, g.Op("mul", {x, neg_inv_sqrt2}));
  TFG_ASSIGN_OR_RETURN(Output erfc, g.Op("erfc", {scaled}));
  TFG_ASSIGN_OR_RETURN(Output cdf, g.Op("mul", {one_half, erfc}));
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  TFG_ASSIGN_OR_RETURN(Output half_x2, g.Op("mul", {one_half, x2}));
  TFG_ASSIGN_OR_RETURN(Output neg, g.Op("neg", {half_x2}));
  TFG_ASSIGN_OR_RETURN(Output e, g.Op("exp", {neg}));
  TFG_ASSIGN_OR_RETURN(Output pdf, g.Op("mul", {inv_sqrt2pi, e}));
  TFG_ASSIGN_OR_RETURN(Output x_pdf, g.Op("mul", {x, pdf}));
  return g.Op("add", {cdf, x_pdf});
}

// With u = c (x + k x^3) and t = tanh(u):
// d/dx 0.5 x (1 + t) = 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 k x^2).
Result<Output> TanhSlope(GradContext& g, Output x) {
  const DType t = x.dtype();
  TFG_ASSIGN_OR_RETURN(Output one_half, g.Scalar(0.5, t));
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, t));
  TFG_ASSIGN_OR_RETURN(Output c, g.Scalar(kSqrtTwoOverPi, t));
  TFG_ASSIGN_OR_RETURN(Output k, g.Scalar(kCubic, t));
  TFG_ASSIGN_OR_RETURN(Output k3, g.Scalar(3 * kCubic, t));
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  TFG_ASSIGN_OR_RETURN(Output x3, g.Op("mul", {x2, x}));
  TFG_ASSIGN_OR_RETURN(Output kx3, g.Op("mul", {k, x3}));
  TFG_ASSIGN_OR_RETURN(Output sum, g.Op("add", {x, kx3}));
  TFG_ASSIGN_OR_RETURN(Output u, g.Op("mul", {c, sum}));
  TFG_ASSIGN_OR_RETURN(Output th, g.Op("tanh", {u}));
  TFG_ASSIGN_OR_RETURN(Output one_plus, g.Op("add", {one, th}));
  TFG_ASSIGN_OR_RETURN(Output first, g.Op("mul", {one_half, one_plus}));
  TFG_ASSIGN_OR_RETURN(Output th2, g.Op("square", {th}));
  TFG_ASSIGN_OR_RETURN(Output sech2, g.Op("sub", {one, th2}));
  TFG_ASSIGN_OR_RETURN(Output k3x2, g.Op("mul", {k3, x2}));
  TFG_ASSIGN_OR_RETURN(Output du_inner, g.Op("add", {one, k3x2}));
  TFG_ASSIGN_OR_RETURN(Output du, g.Op("mul", {c, du_inner}));
  TFG_ASSIGN_OR_RETURN(Output half_x, g.Op("mul", {one_half, x}));
  TFG_ASSIGN_OR_RETURN(Output sech2_du, g.Op("mul", {sech2, du}));
  TFG_ASSIGN_OR_RETURN(Output second, g.Op("mul", {half_x, sech2_du}));
  return g.Op("add", {first, second});
}

Status GeluGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const Output x = g.input(0);
  TFG_ASSIGN_OR_RETURN(Output slope, Approximate(g.node->attrs()) ? TanhSlope(g, x) : ExactSlope(g, x));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("mul", {dy, slope}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("gelu")
                    .Input("x", "T")
                    .Attr("approximate", AttrType::kBool, false,
                          "use the tanh approximation instead of the exact erf form")
                    .Output("y", "T")
                    .TypeAttr("T", FloatTypes())
                    .SetShapeFn(SameShapeFn)
                    .SetGradFn(GeluGrad)
                    .Doc("Gaussian error linear unit (tf.nn.gelu): x Phi(x) = 0.5 x erfc(-x / sqrt(2)); "
                         "approximate=true: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). Gradient: the "
                         "derivative of the chosen form."));
TFG_REGISTER_KERNEL(KernelDef("gelu", DeviceType::kCpu).Create<GeluKernel>());

}  // namespace tfg::nn::gelu
