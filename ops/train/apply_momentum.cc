// apply_momentum(var, accum, lr, grad, momentum, use_nesterov=false), as TF
// 1.x's ApplyMomentum:
//   accum = accum * momentum + grad
//   var -= lr * accum                               (classic)
//   var -= lr * grad + lr * momentum * accum        (Nesterov)
// sparse_apply_momentum(var, accum, lr, grad, indices, momentum, ...) does
// the same for the rows named by indices only; the gradient rows of
// repeated indices are summed first.
#include "ops/train/apply_kernel.h"

namespace tfg {
namespace {

struct Momentum {
  static constexpr size_t kVars = 2;
  static constexpr std::array<const char*, 2> kScalars = {"lr", "momentum"};
  static constexpr int64_t kCost = 4;
  bool nesterov = false;

  Status Init(const KernelConstruction& c) {
    if (const bool* b = c.attr<bool>("use_nesterov")) nesterov = *b;
    return Status::OK();
  }

  template <typename T>
  struct Step {
    using C = train::ComputeT<T>;
    C lr;
    C momentum;
    bool nesterov;

    template <typename G>
    void operator()(const std::array<T*, kVars>& p, int64_t at, const G* g, int64_t n) const {
      if (nesterov) {
        Run<true>(p[0] + at, p[1] + at, g, n);
      } else {
        Run<false>(p[0] + at, p[1] + at, g, n);
      }
    }
    template <bool kNesterov, typename G>
    void Run(T* __restrict var, T* __restrict accum, const G* __restrict g, int64_t n) const {
      for (int64_t i = 0; i < n; ++i) {
        const C gi = static_cast<C>(g[i]);
        const C a = static_cast<C>(accum[i]) * momentum + gi;
        accum[i] = static_cast<T>(a);
        const C delta = kNesterov ? lr * gi + lr * momentum * a : lr * a;
        var[i] = static_cast<T>(static_cast<C>(var[i]) - delta);
      }
    }
  };

  template <typename T>
  Step<T> Prepare(const std::array<train::ComputeT<T>, 2>& s) const {
    return {s[0], s[1], nesterov};
  }
};

constexpr const char* kNesterovDoc = "Nesterov momentum: var -= lr * grad + lr * momentum * accum";

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("apply_momentum")
                    .VariableInput("var", "T")
                    .VariableInput("accum", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .Input("momentum", "T")
                    .Attr("use_nesterov", AttrType::kBool, false, kNesterovDoc)
                    .TypeAttr("T", FloatTypes())
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("Momentum step, in place: accum = accum * momentum + grad; var -= lr * accum (or the "
                         "Nesterov form). `accum` is a slot variable of var's shape; lr and momentum are scalar "
                         "tensors. Run it as a target; it has no outputs."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Momentum>("apply_momentum", /*sparse=*/false));

TFG_REGISTER_OP(OpDefBuilder("sparse_apply_momentum")
                    .VariableInput("var", "T")
                    .VariableInput("accum", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .Input("indices", "Tindices")
                    .Input("momentum", "T")
                    .Attr("use_nesterov", AttrType::kBool, false, kNesterovDoc)
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("apply_momentum on the rows named by `indices` only (grad has shape indices.shape + "
                         "var.shape[1:]); gradient rows of repeated indices are summed first."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Momentum>("sparse_apply_momentum", /*sparse=*/true));

}  // namespace tfg
