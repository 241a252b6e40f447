// lgamma(x) = log |Gamma(x)| and digamma(x) = d/dx lgamma(x), elementwise on
// floats, as tf.math.lgamma / tf.math.digamma: lgamma is +inf at the poles
// (0, -1, -2, ...), digamma NaN there (TensorFlow's values). f16 and f32
// compute in f64. CPU kernels only (no GPU kernel yet).
// Gradients: lgamma' = digamma (TensorFlow's _LgammaGrad). digamma's own
// gradient, polygamma(1, x), is not supported yet: asking for it is an
// Unimplemented error, never a silent zero.
#include <cmath>
#include <limits>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_unary_util.h"
#include "ops/math/gamma_functors.h"

namespace tfg::functor {

// Reentrant: std::lgamma writes the global signgam, a data race between
// kernel threads.
double LogGamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

double DigammaF64(double x) {
  constexpr double kPi = 3.14159265358979323846;
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  double result = 0;
  if (x <= 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();  // a pole
    // Reflection, psi(1 - x) - psi(x) = pi cot(pi x), with cot's period
    // taken out first so pi * x loses no precision for large |x|.
    result = -kPi / std::tan(kPi * (x - std::floor(x)));
    x = 1 - x;
  }
  for (; x < 10; x += 1) result -= 1 / x;  // psi(x) = psi(x + 1) - 1 / x
  // The asymptotic series, to x^-14: its next term is below 1e-16 / x^2 for x >= 10.
  const double inv = 1 / x, inv2 = inv * inv;
  const double series =
      inv2 * (1.0 / 12 -
              inv2 * (1.0 / 120 -
                      inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 / 12))))));
  return result + std::log(x) - 0.5 * inv - series;
}

}  // namespace tfg::functor

namespace tfg::math::gamma_functions {
namespace {

using functor::Digamma;
using functor::Lgamma;

Status LgammaGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("digamma", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("mul", {dy, slope}));
  return Status::OK();
}

Status DigammaGrad(GradContext&) {
  return Unimplemented("digamma: its gradient, polygamma(1, x), is not supported yet");
}

OpDefBuilder GammaOp(const char* name, GradFn grad, const char* doc) {
  OpDefBuilder b(name);
  b.Input("x", "T").Output("y", "T").TypeAttr("T", FloatTypes()).SetShapeFn(SameShapeFn).SetGradFn(std::move(grad));
  b.Doc(doc);
  return b;
}

[[maybe_unused]] const bool kRegistered = [] {
  OpRegistrar lgamma(GammaOp("lgamma", LgammaGrad,
                             "log |Gamma(x)| elementwise (tf.math.lgamma); +inf at 0, -1, -2, ... Gradient: "
                             "digamma(x)."));
  RegisterCwiseKernel("lgamma", FloatUnaryFns<Lgamma>(), 40);
  OpRegistrar digamma(GammaOp("digamma", DigammaGrad,
                              "The derivative of lgamma elementwise (tf.math.digamma); NaN at 0, -1, -2, ... Its "
                              "own gradient (polygamma(1, x)) is not supported yet."));
  RegisterCwiseKernel("digamma", FloatUnaryFns<Digamma>(), 60);
  return true;
}();

}  // namespace
}  // namespace tfg::math::gamma_functions
