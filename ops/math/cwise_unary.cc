// Unary elementwise math. One table; declarations, kernels and gradients
// derive from it. Float-only ops list FloatTypes, so an integer input is refused when
// the node is built, with the allowed dtypes in the message.
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_unary_util.h"

namespace tfg {
namespace {

template <typename F>
CwiseFns NumberFns() {
  CwiseFns fns = FloatUnaryFns<F>();
  AddUnary<F, int32_t>(fns);
  AddUnary<F, int64_t>(fns);
  return fns;
}

// ---- gradients: dL/dx from the incoming gradient `dy`, x and y = f(x)

Result<Output> NegGrad(GradContext& g, Output dy, Output, Output) { return g.Op("neg", {dy}); }
Result<Output> ExpGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("mul", {dy, y}); }
Result<Output> LogGrad(GradContext& g, Output dy, Output x, Output) { return g.Op("div", {dy, x}); }
// The fused helpers of ops/math/cwise_grad.cc read y, so x can be freed.
Result<Output> ReluGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("relu_grad", {dy, y}); }
Result<Output> SqrtGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("sqrt_grad", {dy, y}); }
Result<Output> RsqrtGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("rsqrt_grad", {dy, y}); }
Result<Output> TanhGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("tanh_grad", {dy, y}); }
Result<Output> SigmoidGrad(GradContext& g, Output dy, Output, Output y) { return g.Op("sigmoid_grad", {dy, y}); }

// sign' = 0 (TensorFlow's zeros, not "no gradient": grad(sum(sign(x)), x) is zeros_like(x)).
Result<Output> ZeroGrad(GradContext& g, Output, Output x, Output) { return g.Op("zeros_like", {x}); }

// dy * f'(x) where f' is the unary op `slope` (|x|' = sign(x), sin' = cos).
template <const char* kSlope>
Result<Output> SlopeGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op(kSlope, {x}));
  return g.Op("mul", {dy, slope});
}
constexpr char kSign[] = "sign", kCos[] = "cos";

Result<Output> SquareGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output two_x, g.Op("add", {x, x}));
  return g.Op("mul", {dy, two_x});
}

Result<Output> CosGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output sin, g.Op("sin", {x}));
  TFG_ASSIGN_OR_RETURN(Output prod, g.Op("mul", {dy, sin}));
  return g.Op("neg", {prod});
}

// log1p' = 1 / (1 + x).
Result<Output> Log1pGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, x.dtype()));
  TFG_ASSIGN_OR_RETURN(Output one_plus_x, g.Op("add", {one, x}));
  return g.Op("div", {dy, one_plus_x});
}

// expm1' = exp(x) = y + 1.
Result<Output> Expm1Grad(GradContext& g, Output dy, Output, Output y) {
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, y.dtype()));
  TFG_ASSIGN_OR_RETURN(Output exp_x, g.Op("add", {y, one}));
  return g.Op("mul", {dy, exp_x});
}

// (1/x)' = -1/x^2 = -y^2.
Result<Output> ReciprocalGrad(GradContext& g, Output dy, Output, Output y) {
  TFG_ASSIGN_OR_RETURN(Output y2, g.Op("square", {y}));
  TFG_ASSIGN_OR_RETURN(Output prod, g.Op("mul", {dy, y2}));
  return g.Op("neg", {prod});
}

struct UnaryOp {
  const char* name;
  CwiseFns fns;
  bool floats_only;
  int64_t cost;
  UnaryGrad grad;           // null: no_gradient says why
  const char* no_gradient;
  const char* doc;
};

const UnaryOp kUnaryOps[] = {
    {"neg", NumberFns<functor::Neg>(), false, 1, NegGrad, nullptr, "-x elementwise."},
    {"abs", NumberFns<functor::Abs>(), false, 1, SlopeGrad<kSign>, nullptr, "|x| elementwise."},
    {"sign", NumberFns<functor::Sign>(), false, 1, ZeroGrad, nullptr,
     "-1, 0 or 1 by the sign of x (NaN stays NaN). Its gradient is zero, as TensorFlow's."},
    {"square", NumberFns<functor::Square>(), false, 1, SquareGrad, nullptr, "x * x elementwise."},
    {"relu", NumberFns<functor::Relu>(), false, 1, ReluGrad, nullptr, "max(x, 0) elementwise."},
    {"exp", FloatUnaryFns<functor::Exp>(), true, 20, ExpGrad, nullptr, "e ** x elementwise."},
    {"log", FloatUnaryFns<functor::Log>(), true, 20, LogGrad, nullptr, "Natural logarithm elementwise."},
    {"sqrt", FloatUnaryFns<functor::Sqrt>(), true, 10, SqrtGrad, nullptr, "Square root elementwise."},
    {"rsqrt", FloatUnaryFns<functor::Rsqrt>(), true, 12, RsqrtGrad, nullptr, "1 / sqrt(x) elementwise."},
    {"tanh", FloatUnaryFns<functor::Tanh>(), true, 30, TanhGrad, nullptr, "Hyperbolic tangent elementwise."},
    {"sigmoid", FloatUnaryFns<functor::Sigmoid>(), true, 30, SigmoidGrad, nullptr,
     "1 / (1 + exp(-x)) elementwise, computed without overflow for large |x|."},
    {"sin", FloatUnaryFns<functor::Sin>(), true, 20, SlopeGrad<kCos>, nullptr, "Sine elementwise (radians)."},
    {"cos", FloatUnaryFns<functor::Cos>(), true, 20, CosGrad, nullptr, "Cosine elementwise (radians)."},
    {"log1p", FloatUnaryFns<functor::Log1p>(), true, 20, Log1pGrad, nullptr,
     "log(1 + x) elementwise, accurate for x near 0."},
    {"expm1", FloatUnaryFns<functor::Expm1>(), true, 20, Expm1Grad, nullptr,
     "exp(x) - 1 elementwise, accurate for x near 0."},
    {"reciprocal", FloatUnaryFns<functor::Reciprocal>(), true, 2, ReciprocalGrad, nullptr, "1 / x elementwise."},
    {"floor", FloatUnaryFns<functor::Floor>(), true, 2, nullptr,
     "piecewise constant: gradient is zero almost everywhere", "The largest integer <= x, elementwise."},
    {"ceil", FloatUnaryFns<functor::Ceil>(), true, 2, nullptr,
     "piecewise constant: gradient is zero almost everywhere", "The smallest integer >= x, elementwise."},
    {"round", FloatUnaryFns<functor::Round>(), true, 3, nullptr,
     "piecewise constant: gradient is zero almost everywhere",
     "x rounded to the nearest integer, ties to even (2.5 -> 2, 3.5 -> 4), elementwise."},
};

[[maybe_unused]] const bool kRegistered = [] {
  for (const UnaryOp& op : kUnaryOps) {
    OpDefBuilder b(op.name);
    b.Input("x", "T").Output("y", "T").TypeAttr("T", op.floats_only ? FloatTypes() : NumberTypes());
    b.SetShapeFn(SameShapeFn).Doc(op.doc);
    if (op.grad != nullptr) b.SetGradFn(UnaryGradFn(op.grad));
    if (op.no_gradient != nullptr) b.NoGradient(op.no_gradient);
    OpRegistrar reg(std::move(b));
    RegisterCwiseKernel(op.name, op.fns, op.cost);
  }
  return true;
}();

}  // namespace
}  // namespace tfg
