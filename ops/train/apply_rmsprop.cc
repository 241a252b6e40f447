// apply_rmsprop(var, ms, mom, lr, rho, momentum, epsilon, grad), as TF 1.x's
// ApplyRMSProp:
//   ms = rho * ms + (1 - rho) * grad^2
//   mom = momentum * mom + lr * grad / sqrt(ms + epsilon)
//   var -= mom
#include <algorithm>

#include "ops/train/apply_kernel.h"

namespace tfg {
namespace {

struct RmsProp {
  static constexpr size_t kVars = 3;
  static constexpr std::array<const char*, 4> kScalars = {"lr", "rho", "momentum", "epsilon"};
  static constexpr int64_t kCost = 14;

  Status Init(const KernelConstruction&) { return Status::OK(); }

  template <typename T>
  struct Step {
    using C = train::ComputeT<T>;
    C lr;
    C rho;
    C momentum;
    C epsilon;

    template <typename G>
    void operator()(const std::array<T*, kVars>& p, int64_t at, const G* g, int64_t n) const {
      for (int64_t b = 0; b < n; b += train::kBlock) {
        Block(p[0] + at + b, p[1] + at + b, p[2] + at + b, g + b, std::min(train::kBlock, n - b));
      }
    }
    // Two passes over a block that stays in L1, with the square roots
    // taken in between by a SIMD routine.
    template <typename G>
    void Block(T* __restrict var, T* __restrict ms, T* __restrict mom, const G* __restrict g, int64_t n) const {
      C root[train::kBlock];
      for (int64_t i = 0; i < n; ++i) {
        const C gi = static_cast<C>(g[i]);
        const C s = rho * static_cast<C>(ms[i]) + (1 - rho) * gi * gi;
        ms[i] = static_cast<T>(s);
        root[i] = s + epsilon;
      }
      train::SqrtInPlace(root, n);
      for (int64_t i = 0; i < n; ++i) {
        const C m = momentum * static_cast<C>(mom[i]) + lr * static_cast<C>(g[i]) / root[i];
        mom[i] = static_cast<T>(m);
        var[i] = static_cast<T>(static_cast<C>(var[i]) - m);
      }
    }
  };

  template <typename T>
  Step<T> Prepare(const std::array<train::ComputeT<T>, 4>& s) const {
    return {s[0], s[1], s[2], s[3]};
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("apply_rmsprop")
                    .VariableInput("var", "T")
                    .VariableInput("ms", "T")
                    .VariableInput("mom", "T")
                    .Input("lr", "T")
                    .Input("rho", "T")
                    .Input("momentum", "T")
                    .Input("epsilon", "T")
                    .Input("grad", "T")
                    .TypeAttr("T", FloatTypes())
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("RMSProp step, in place: ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * "
                         "grad / sqrt(ms + epsilon); var -= mom. ms and mom are slot variables of var's shape. "
                         "Run it as a target; it has no outputs."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<RmsProp>("apply_rmsprop", /*sparse=*/false));

}  // namespace tfg
