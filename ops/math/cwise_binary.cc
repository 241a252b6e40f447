// Binary elementwise arithmetic: add, sub, mul, div, floordiv, mod, pow,
// maximum, minimum. All broadcast NumPy-style over f16 f32 f64 i32 i64; the
// ops are one table, and their declarations, kernels and gradients derive
// from it.
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_loops.h"

namespace tfg::math::cwise_binary {
namespace {

template <typename F>
CwiseFns ArithFns() {
  CwiseFns fns;
  AddBinary<F, half, half>(fns);
  AddBinary<F, float, float>(fns);
  AddBinary<F, double, double>(fns);
  AddBinary<F, int32_t, int32_t>(fns);
  AddBinary<F, int64_t, int64_t>(fns);
  return fns;
}

// ---- gradients: from the incoming gradient dz and x, y, z = f(x, y), the
// gradients for x and y at z's (broadcast) shape; MakeGrad sums them back
// to x's and y's shapes.

struct Operands {
  Output dz, x, y, z;
};
using BinaryGrad = Status (*)(GradContext& g, const Operands& o, Output* gx, Output* gy);

Status AddGrad(GradContext&, const Operands& o, Output* gx, Output* gy) {
  *gx = *gy = o.dz;
  return Status::OK();
}

Status SubGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  *gx = o.dz;
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("neg", {o.dz}));
  return Status::OK();
}

Status MulGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  TFG_ASSIGN_OR_RETURN(*gx, g.Op("mul", {o.dz, o.y}));
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("mul", {o.dz, o.x}));
  return Status::OK();
}

// d(x/y)/dy = -x/y² = -z/y.
Status DivGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  TFG_ASSIGN_OR_RETURN(*gx, g.Op("div", {o.dz, o.y}));
  TFG_ASSIGN_OR_RETURN(Output dz_z, g.Op("mul", {o.dz, o.z}));
  TFG_ASSIGN_OR_RETURN(Output ratio, g.Op("div", {dz_z, o.y}));
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("neg", {ratio}));
  return Status::OK();
}

// d(x^y)/dx = y x^(y-1); d(x^y)/dy = z log(x), taken as 0 where x <= 0
// (as TensorFlow does) rather than NaN.
Status PowGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  const DType t = o.x.dtype();
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, t));
  TFG_ASSIGN_OR_RETURN(Output zero, g.Scalar(0, t));
  TFG_ASSIGN_OR_RETURN(Output y_minus_1, g.Op("sub", {o.y, one}));
  TFG_ASSIGN_OR_RETURN(Output power, g.Op("pow", {o.x, y_minus_1}));
  TFG_ASSIGN_OR_RETURN(Output slope, g.Op("mul", {o.y, power}));
  TFG_ASSIGN_OR_RETURN(*gx, g.Op("mul", {o.dz, slope}));
  TFG_ASSIGN_OR_RETURN(Output positive, g.Op("greater", {o.x, zero}));
  TFG_ASSIGN_OR_RETURN(Output log_x, g.Op("log", {o.x}));
  TFG_ASSIGN_OR_RETURN(Output safe_log, g.Op("where", {positive, log_x, zero}));
  TFG_ASSIGN_OR_RETURN(Output z_log, g.Op("mul", {o.z, safe_log}));
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("mul", {o.dz, z_log}));
  return Status::OK();
}

// x % y = x - floor(x / y) * y: slope 1 in x and -floor(x / y) in y between
// the jumps (TensorFlow's FloorMod gradient).
Status ModGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  *gx = o.dz;
  TFG_ASSIGN_OR_RETURN(Output quotient, g.Op("floordiv", {o.x, o.y}));
  TFG_ASSIGN_OR_RETURN(Output scaled, g.Op("mul", {o.dz, quotient}));
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("neg", {scaled}));
  return Status::OK();
}

// dz goes to x where `x_wins(x, y)`, else to y (ties to x, as in TF).
template <const char* kXWins>
Status SelectGrad(GradContext& g, const Operands& o, Output* gx, Output* gy) {
  TFG_ASSIGN_OR_RETURN(Output zero, g.Scalar(0, o.dz.dtype()));
  TFG_ASSIGN_OR_RETURN(Output x_wins, g.Op(kXWins, {o.x, o.y}));
  TFG_ASSIGN_OR_RETURN(*gx, g.Op("where", {x_wins, o.dz, zero}));
  TFG_ASSIGN_OR_RETURN(*gy, g.Op("where", {x_wins, zero, o.dz}));
  return Status::OK();
}
constexpr char kGreaterEqual[] = "greater_equal", kLessEqual[] = "less_equal";

GradFn MakeGrad(BinaryGrad rule) {
  return [rule](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output dz, g.OutputGrad(0));
    Output full[2];
    TFG_RETURN_IF_ERROR(rule(g, Operands{dz, g.input(0), g.input(1), g.output(0)}, &full[0], &full[1]));
    for (int i = 0; i < 2; ++i) {
      TFG_ASSIGN_OR_RETURN(g.input_grads[i], g.Unbroadcast(full[i], g.input(i)));
    }
    return Status::OK();
  };
}

struct BinaryOp {
  const char* name;
  CwiseFns fns;
  int64_t cost;             // cycles per element, roughly
  BinaryGrad grad;          // null: no_gradient says why
  const char* no_gradient;
  const char* doc;
};

const BinaryOp kBinaryOps[] = {
    {"add", ArithFns<functor::Add>(), 1, AddGrad, nullptr, "x + y elementwise, with NumPy broadcasting."},
    {"sub", ArithFns<functor::Sub>(), 1, SubGrad, nullptr, "x - y elementwise, with NumPy broadcasting."},
    {"mul", ArithFns<functor::Mul>(), 1, MulGrad, nullptr, "x * y elementwise, with NumPy broadcasting."},
    {"div", ArithFns<functor::Div>(), 8, DivGrad, nullptr,
     "x / y elementwise: true division for floats, truncating C division for integers "
     "(integer division by zero is an error)."},
    {"floordiv", ArithFns<functor::FloorDiv>(), 20, nullptr, "piecewise constant: gradient is zero almost everywhere",
     "x // y elementwise, rounding toward negative infinity as in Python."},
    {"mod", ArithFns<functor::Mod>(), 20, ModGrad, nullptr,
     "x % y elementwise as in Python: the result has the sign of y (fmod-based for floats)."},
    {"pow", ArithFns<functor::Pow>(), 40, PowGrad, nullptr,
     "x ** y elementwise; for integers an exact power (negative exponents are an error)."},
    {"maximum", ArithFns<functor::Maximum>(), 1, SelectGrad<kGreaterEqual>, nullptr,
     "The larger of x and y elementwise (NaN propagates)."},
    {"minimum", ArithFns<functor::Minimum>(), 1, SelectGrad<kLessEqual>, nullptr,
     "The smaller of x and y elementwise (NaN propagates)."},
};

[[maybe_unused]] const bool kRegistered = [] {
  for (const BinaryOp& op : kBinaryOps) {
    OpDefBuilder b(op.name);
    b.Input("x", "T").Input("y", "T").Output("z", "T").TypeAttr("T", NumberTypes());
    b.SetShapeFn(BroadcastShapeFn).Doc(op.doc);
    if (op.grad != nullptr) b.SetGradFn(MakeGrad(op.grad));
    if (op.no_gradient != nullptr) b.NoGradient(op.no_gradient);
    OpRegistrar reg(std::move(b));
    RegisterCwiseKernel(op.name, op.fns, op.cost);
  }
  return true;
}();

}  // namespace
}  // namespace tfg::math::cwise_binary
