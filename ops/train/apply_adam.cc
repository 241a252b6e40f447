// apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
// grad, use_nesterov=false), as TF 1.x's ApplyAdam:
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m = beta1 * m + (1 - beta1) * grad
//   v = beta2 * v + (1 - beta2) * grad^2
//   var -= lr_t * m / (sqrt(v) + epsilon)
// (Nesterov: m in the last line becomes beta1 * m + (1 - beta1) * grad).
// sparse_apply_adam is lazy Adam: only the rows named by indices move, and
// only their m and v decay; gradient rows of repeated indices are summed.
#include <algorithm>
#include <cmath>

#include "ops/train/apply_kernel.h"

namespace tfg {
namespace {

struct Adam {
  static constexpr size_t kVars = 3;
  static constexpr std::array<const char*, 6> kScalars = {"beta1_power", "beta2_power", "lr",
                                                          "beta1",       "beta2",       "epsilon"};
  static constexpr int64_t kCost = 16;
  bool nesterov = false;

  Status Init(const KernelConstruction& c) {
    if (const bool* b = c.attr<bool>("use_nesterov")) nesterov = *b;
    return Status::OK();
  }

  template <typename T>
  struct Step {
    using C = train::ComputeT<T>;
    C lr_t;
    C beta1;
    C beta2;
    C epsilon;
    bool nesterov;

    template <typename G>
    void operator()(const std::array<T*, kVars>& p, int64_t at, const G* g, int64_t n) const {
      for (int64_t b = 0; b < n; b += train::kBlock) {
        const int64_t k = std::min(train::kBlock, n - b);
        if (nesterov) {
          Block<true>(p[0] + at + b, p[1] + at + b, p[2] + at + b, g + b, k);
        } else {
          Block<false>(p[0] + at + b, p[1] + at + b, p[2] + at + b, g + b, k);
        }
      }
    }
    // Two passes over a block that stays in L1, with the square roots
    // taken in between by a SIMD routine.
    template <bool kNesterov, typename G>
    void Block(T* __restrict var, T* __restrict m, T* __restrict v, const G* __restrict g, int64_t n) const {
      C root[train::kBlock];
      for (int64_t i = 0; i < n; ++i) {
        const C gi = static_cast<C>(g[i]);
        const C mi = beta1 * static_cast<C>(m[i]) + (1 - beta1) * gi;
        const C vi = beta2 * static_cast<C>(v[i]) + (1 - beta2) * gi * gi;
        m[i] = static_cast<T>(mi);
        v[i] = static_cast<T>(vi);
        root[i] = vi;
      }
      train::SqrtInPlace(root, n);
      for (int64_t i = 0; i < n; ++i) {
        const C mi = static_cast<C>(m[i]);
        const C dir = kNesterov ? beta1 * mi + (1 - beta1) * static_cast<C>(g[i]) : mi;
        var[i] = static_cast<T>(static_cast<C>(var[i]) - lr_t * dir / (root[i] + epsilon));
      }
    }
  };

  template <typename T>
  Step<T> Prepare(const std::array<train::ComputeT<T>, 6>& s) const {
    using C = train::ComputeT<T>;
    const C lr_t = s[2] * std::sqrt(C(1) - s[1]) / (C(1) - s[0]);
    return {lr_t, s[3], s[4], s[5], nesterov};
  }
};

OpDefBuilder AdamOp(const char* name, bool sparse) {
  OpDefBuilder b(name);
  b.VariableInput("var", "T").VariableInput("m", "T").VariableInput("v", "T");
  for (const char* scalar : Adam::kScalars) b.Input(scalar, "T");
  b.Input("grad", "T");
  if (sparse) {
    b.Input("indices", "Tindices").TypeAttr("Tindices", {DType::kI32, DType::kI64});
  } else {
    b.Attr("use_nesterov", AttrType::kBool, false, "Nesterov-accelerated Adam (NAdam-style update direction)");
  }
  b.TypeAttr("T", FloatTypes()).Stateful().SetShapeFn(train::ApplyShapeFn).NoGradient("optimizer update");
  return b;
}

}  // namespace

TFG_REGISTER_OP(AdamOp("apply_adam", false)
                    .Doc("Adam step, in place (TF's formula): lr_t = lr * sqrt(1 - beta2_power) / (1 - "
                         "beta1_power); m = beta1 * m + (1 - beta1) * grad; v = beta2 * v + (1 - beta2) * grad^2; "
                         "var -= lr_t * m / (sqrt(v) + epsilon). m and v are slot variables of var's shape; "
                         "beta1_power and beta2_power are beta1^t and beta2^t for step t (from 1). Run it as a "
                         "target; it has no outputs."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Adam>("apply_adam", /*sparse=*/false));

TFG_REGISTER_OP(AdamOp("sparse_apply_adam", true)
                    .Doc("Lazy Adam: apply_adam on the rows named by `indices` only (grad has shape "
                         "indices.shape + var.shape[1:]); m and v of other rows do not decay. Gradient rows of "
                         "repeated indices are summed first."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Adam>("sparse_apply_adam", /*sparse=*/true));

}  // namespace tfg
