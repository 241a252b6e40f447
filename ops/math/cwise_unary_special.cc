// The elementwise float functions TensorFlow 1.x users reach for beyond
// cwise_unary.cc's: erf, erfc, the inverse trigonometric functions, sinh,
// cosh, tan, and the is_finite / is_inf tests. One table, as cwise_unary.cc;
// CPU kernels only (no GPU kernel yet: on a GPU device they run on the CPU).
// Gradients are TensorFlow's, written with registry ops so they differentiate
// again.
#include <cmath>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_special_functors.h"
#include "ops/math/cwise_unary_util.h"

namespace tfg::math::cwise_unary_special {
namespace {

// ---- gradients: dL/dx from the incoming gradient dy, x and y = f(x)

// 1 - x^2, shared by asin' and acos'.
Result<Output> OneMinusSquare(GradContext& g, Output x) {
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, x.dtype()));
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  return g.Op("sub", {one, x2});
}

// erf'(x) = 2 / sqrt(pi) * exp(-x^2); `sign` -1 for erfc.
template <int kSign>
Result<Output> ErfGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  TFG_ASSIGN_OR_RETURN(Output neg_x2, g.Op("neg", {x2}));
  TFG_ASSIGN_OR_RETURN(Output e, g.Op("exp", {neg_x2}));
  TFG_ASSIGN_OR_RETURN(Output c, g.Scalar(kSign * 1.1283791670955126, x.dtype()));  // 2 / sqrt(pi)
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("mul", {c, e}));
  return g.Op("mul", {dy, slope});
}

// asin' = 1 / sqrt(1 - x^2), acos' = its negative.
template <int kSign>
Result<Output> AsinGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output d, OneMinusSquare(g, x));
  TFG_ASSIGN_OR_RETURN(Output inv, g.Op("rsqrt", {d}));
  TFG_ASSIGN_OR_RETURN(Output prod, g.Op("mul", {dy, inv}));
  if (kSign > 0) return prod;
  return g.Op("neg", {prod});
}

// atan' = 1 / (1 + x^2).
Result<Output> AtanGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, x.dtype()));
  TFG_ASSIGN_OR_RETURN(Output x2, g.Op("square", {x}));
  TFG_ASSIGN_OR_RETURN(Output d, g.Op("add", {one, x2}));
  return g.Op("div", {dy, d});
}

// dy * f'(x) where f' is the unary op `slope` (sinh' = cosh, cosh' = sinh).
template <const char* kSlope>
Result<Output> SlopeGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op(kSlope, {x}));
  return g.Op("mul", {dy, slope});
}
constexpr char kSinh[] = "sinh", kCosh[] = "cosh";

// tan' = sec^2 = 1 / cos(x)^2, as TensorFlow's _TanGrad.
Result<Output> TanGrad(GradContext& g, Output dy, Output x, Output) {
  TFG_ASSIGN_OR_RETURN(Output c, g.Op("cos", {x}));
  TFG_ASSIGN_OR_RETURN(Output c2, g.Op("square", {c}));
  return g.Op("div", {dy, c2});
}

struct SpecialOp {
  const char* name;
  CwiseFns fns;
  int64_t cost;
  UnaryGrad grad;  // null: a bool output, no gradient
  const char* doc;
};

const SpecialOp kSpecialOps[] = {
    {"erf", FloatUnaryFns<functor::Erf>(), 30, ErfGrad<1>, "The error function erf(x) elementwise (tf.math.erf)."},
    {"erfc", FloatUnaryFns<functor::Erfc>(), 30, ErfGrad<-1>,
     "The complementary error function 1 - erf(x) elementwise, accurate where erf(x) is near 1 (tf.math.erfc)."},
    {"asin", FloatUnaryFns<functor::Asin>(), 20, AsinGrad<1>,
     "Arcsine elementwise, in [-pi/2, pi/2]; NaN outside [-1, 1] (tf.math.asin)."},
    {"acos", FloatUnaryFns<functor::Acos>(), 20, AsinGrad<-1>,
     "Arccosine elementwise, in [0, pi]; NaN outside [-1, 1] (tf.math.acos)."},
    {"atan", FloatUnaryFns<functor::Atan>(), 20, AtanGrad, "Arctangent elementwise, in (-pi/2, pi/2) (tf.math.atan)."},
    {"sinh", FloatUnaryFns<functor::Sinh>(), 20, SlopeGrad<kCosh>, "Hyperbolic sine elementwise (tf.math.sinh)."},
    {"cosh", FloatUnaryFns<functor::Cosh>(), 20, SlopeGrad<kSinh>, "Hyperbolic cosine elementwise (tf.math.cosh)."},
    {"tan", FloatUnaryFns<functor::Tan>(), 20, TanGrad, "Tangent elementwise, x in radians (tf.math.tan)."},
    {"is_finite", FloatUnaryFns<functor::IsFinite, bool>(), 1, nullptr,
     "True where x is neither infinite nor NaN, elementwise (tf.math.is_finite)."},
    {"is_inf", FloatUnaryFns<functor::IsInf, bool>(), 1, nullptr,
     "True where x is +inf or -inf, elementwise (tf.math.is_inf)."},
};

[[maybe_unused]] const bool kRegistered = [] {
  for (const SpecialOp& op : kSpecialOps) {
    OpDefBuilder b(op.name);
    b.Input("x", "T").Output("y", op.grad != nullptr ? "T" : "bool").TypeAttr("T", FloatTypes());
    b.SetShapeFn(SameShapeFn).Doc(op.doc);
    if (op.grad != nullptr) {
      b.SetGradFn(UnaryGradFn(op.grad));
    } else {
      b.NoGradient("boolean output");
    }
    OpRegistrar reg(std::move(b));
    RegisterCwiseKernel(op.name, op.fns, op.cost);
  }
  return true;
}();

}  // namespace
}  // namespace tfg::math::cwise_unary_special
