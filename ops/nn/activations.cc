// Activation functions beyond the math family's relu/sigmoid/tanh, each
// with a one-pass gradient helper `<name>_grad(dy, x) = dy * f'(x)`:
//   leaky_relu(x, alpha=0.2)  x > 0 ? x : alpha * x
//   elu(x)                    x > 0 ? x : exp(x) - 1
//   softplus(x)               log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|))
//   relu6(x)                  min(max(x, 0), 6)
// Derivatives at the kinks follow TensorFlow: 0 < x (< 6) takes the right
// branch. f16 computes in f32.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "ops/autodiff/gradients.h"
#include "ops/core/forward_input.h"
#include "ops/core/op_registry.h"
#include "ops/nn/activation_functors.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace {

using nn::Elu;
using nn::LeakyRelu;
using nn::Relu6;
using nn::Softplus;

// y = f(x) (kGrad false) or dx = dy * f'(x) (kGrad true; inputs dy, x).
template <typename A, bool kGrad, typename T>
void Run(const OpKernelContext& ctx, double alpha, Tensor* out) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C a = static_cast<C>(alpha);
  const T* x = ctx.input(kGrad ? 1 : 0).data<T>();
  const T* dy = ctx.input(0).data<T>();
  T* y = out->data<T>();
  ctx.ParallelFor(out->num_elements(), 20, [=](int64_t s, int64_t e) {
    // A functor with a loop of its own (softplus's vector lanes) runs it on
    // floats: the same bits as F one element at a time.
    if constexpr (!kGrad && std::is_same_v<T, float> && requires { &A::FloatBlock; }) {
      A::FloatBlock(x + s, y + s, e - s);
      return;
    }
    for (int64_t i = s; i < e; ++i) {
      const C xi = static_cast<C>(x[i]);
      y[i] = kGrad ? static_cast<T>(static_cast<C>(dy[i]) * A::Slope(xi, a)) : static_cast<T>(A::F(xi, a));
    }
  });
}

template <typename A, bool kGrad>
class ActivationKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const double* alpha = c.attr<double>("alpha")) alpha_ = *alpha;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(kGrad ? 1 : 0);
    if (kGrad && ctx.input(0).shape() != x.shape()) {
      return InvalidArgument("{}: dy has shape {} but x has shape {}", nn::OpName(ctx), ctx.input(0).shape().ToString(),
                             x.shape().ToString());
    }
    // In place when an input is dead after this op (forward_input.h): each
    // element (softplus: each group of four) is read before it is written.
    TFG_ASSIGN_OR_RETURN(Tensor * out, kGrad ? ForwardInputOrAllocate(ctx, {0, 1}, 0, x.shape())
                                             : ForwardInputOrAllocate(ctx, {0}, 0, x.shape()));
    switch (x.dtype()) {
      case DType::kF16: Run<A, kGrad, half>(ctx, alpha_, out); break;
      case DType::kF32: Run<A, kGrad, float>(ctx, alpha_, out); break;
      case DType::kF64: Run<A, kGrad, double>(ctx, alpha_, out); break;
      default: return Unimplemented("{}: no CPU kernel for dtype {}", nn::OpName(ctx), DTypeName(x.dtype()));
    }
    return Status::OK();
  }

 private:
  double alpha_ = 0;
};

// The forward op's gradient: <name>_grad(dy, x) with the same attrs.
GradFn ForwardGrad(std::string grad_op) {
  return [grad_op = std::move(grad_op)](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(grad_op, {dy, g.input(0)}, g.node->attrs()));
    return Status::OK();
  };
}

// For piecewise-linear f, dx = dy * f'(x) is linear in dy with f' constant
// almost everywhere: the helper is its own gradient for dy, and x gets none.
GradFn PiecewiseLinearGradGrad(std::string grad_op) {
  return [grad_op = std::move(grad_op)](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(grad_op, {grad, g.input(1)}, g.node->attrs()));
    return Status::OK();
  };
}

template <typename A>
void Register(const char* name, bool piecewise_linear, bool has_alpha, const char* doc) {
  const std::string grad = std::string(name) + "_grad";
  auto declare = [&](OpDefBuilder& b) {
    if (has_alpha) b.Attr("alpha", AttrType::kFloat, 0.2, "slope for x <= 0");
    b.TypeAttr("T", FloatTypes()).SetShapeFn(shape_fns::Unchanged);
  };
  OpDefBuilder fwd(name);
  fwd.Input("x", "T");
  declare(fwd);
  fwd.Output("y", "T").SetGradFn(ForwardGrad(grad)).Doc(doc);
  OpDefBuilder back(grad);
  back.Input("dy", "T").Input("x", "T");
  declare(back);
  back.Output("dx", "T")
      .SetGradFn(piecewise_linear ? PiecewiseLinearGradGrad(grad) : nn::NoSecondDerivative(grad))
      .Doc("The gradient of " + std::string(name) + ": dy * " + name + "'(x).");
  OpRegistrar forward_op(fwd);
  OpRegistrar grad_op(back);
  KernelRegistrar forward_kernel(KernelDef(name, DeviceType::kCpu).Create<ActivationKernel<A, false>>());
  KernelRegistrar grad_kernel(KernelDef(grad, DeviceType::kCpu).Create<ActivationKernel<A, true>>());
}

[[maybe_unused]] const bool kRegistered = [] {
  Register<LeakyRelu>("leaky_relu", true, true, "x for x > 0, alpha * x otherwise, elementwise.");
  Register<Elu>("elu", false, false, "x for x > 0, exp(x) - 1 otherwise, elementwise.");
  Register<Softplus>("softplus", false, false,
                     "log(1 + exp(x)) elementwise, computed as max(x, 0) + log1p(exp(-|x|)) so it never overflows.");
  Register<Relu6>("relu6", true, false, "min(max(x, 0), 6) elementwise.");
  return true;
}();

}  // namespace
}  // namespace tfg
