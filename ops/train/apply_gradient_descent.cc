// apply_gradient_descent(var, lr, grad): var -= lr * grad, in place.
// sparse_apply_gradient_descent(var, lr, grad, indices): the same for the
// rows named by indices (grad has shape indices.shape + var.shape[1:]);
// repeated indices all apply, as scatter_sub would.
#include "ops/train/apply_kernel.h"

namespace tfg {
namespace {

struct GradientDescent {
  static constexpr size_t kVars = 1;
  static constexpr std::array<const char*, 1> kScalars = {"lr"};
  static constexpr int64_t kCost = 2;

  Status Init(const KernelConstruction&) { return Status::OK(); }

  template <typename T>
  struct Step {
    using C = train::ComputeT<T>;
    C lr;

    template <typename G>
    void operator()(const std::array<T*, kVars>& p, int64_t at, const G* g, int64_t n) const {
      Run(p[0] + at, g, n);
    }
    template <typename G>
    void Run(T* __restrict var, const G* __restrict g, int64_t n) const {
      for (int64_t i = 0; i < n; ++i) var[i] = static_cast<T>(static_cast<C>(var[i]) - lr * static_cast<C>(g[i]));
    }
  };

  template <typename T>
  Step<T> Prepare(const std::array<train::ComputeT<T>, 1>& s) const {
    return {s[0]};
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("apply_gradient_descent")
                    .VariableInput("var", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .TypeAttr("T", FloatTypes())
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("Gradient descent step, in place: var -= lr * grad. `lr` is a scalar tensor (it may "
                         "follow a schedule); grad has var's shape. Run it as a target; it has no outputs."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<GradientDescent>("apply_gradient_descent", /*sparse=*/false));

TFG_REGISTER_OP(OpDefBuilder("sparse_apply_gradient_descent")
                    .VariableInput("var", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .Input("indices", "Tindices")
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("Gradient descent on the rows named by `indices` (an embedding's sparse gradient): "
                         "var[indices[i]] -= lr * grad[i]; grad has shape indices.shape + var.shape[1:] and "
                         "repeated indices all apply. Other rows are untouched."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<GradientDescent>("sparse_apply_gradient_descent", /*sparse=*/true));

}  // namespace tfg
