// apply_adagrad(var, accum, lr, grad, update_slots=true), as TF 1.x's
// ApplyAdagrad:
//   accum += grad^2          (only when update_slots)
//   var -= lr * grad / sqrt(accum)
// sparse_apply_adagrad(var, accum, lr, grad, indices, update_slots=true)
// does the same for the rows named by indices only; the gradient rows of
// repeated indices are summed first.
#include <algorithm>

#include "ops/train/apply_kernel.h"

namespace tfg {
namespace {

struct Adagrad {
  static constexpr size_t kVars = 2;
  static constexpr std::array<const char*, 1> kScalars = {"lr"};
  static constexpr int64_t kCost = 10;
  bool update_slots = true;

  Status Init(const KernelConstruction& c) {
    if (const bool* b = c.attr<bool>("update_slots")) update_slots = *b;
    return Status::OK();
  }

  template <typename T>
  struct Step {
    using C = train::ComputeT<T>;
    C lr;
    bool update_slots;

    template <typename G>
    void operator()(const std::array<T*, kVars>& p, int64_t at, const G* g, int64_t n) const {
      for (int64_t b = 0; b < n; b += train::kBlock) {
        const int64_t k = std::min(train::kBlock, n - b);
        if (update_slots) {
          Block<true>(p[0] + at + b, p[1] + at + b, g + b, k);
        } else {
          Block<false>(p[0] + at + b, p[1] + at + b, g + b, k);
        }
      }
    }
    // Two passes over a block that stays in L1, with the square roots
    // taken in between by a SIMD routine.
    template <bool kUpdateSlots, typename G>
    void Block(T* __restrict var, T* __restrict accum, const G* __restrict g, int64_t n) const {
      C root[train::kBlock];
      for (int64_t i = 0; i < n; ++i) {
        const C gi = static_cast<C>(g[i]);
        C a = static_cast<C>(accum[i]);
        if constexpr (kUpdateSlots) {
          a += gi * gi;
          accum[i] = static_cast<T>(a);
        }
        root[i] = a;
      }
      train::SqrtInPlace(root, n);
      for (int64_t i = 0; i < n; ++i) {
        var[i] = static_cast<T>(static_cast<C>(var[i]) - lr * static_cast<C>(g[i]) / root[i]);
      }
    }
  };

  template <typename T>
  Step<T> Prepare(const std::array<train::ComputeT<T>, 1>& s) const {
    return {s[0], update_slots};
  }
};

constexpr const char* kUpdateSlotsDoc = "add grad^2 to accum before the step (false: accum is left as it is)";

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("apply_adagrad")
                    .VariableInput("var", "T")
                    .VariableInput("accum", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .Attr("update_slots", AttrType::kBool, true, kUpdateSlotsDoc)
                    .TypeAttr("T", FloatTypes())
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("Adagrad step, in place: accum += grad^2; var -= lr * grad / sqrt(accum). accum is a "
                         "slot variable of var's shape (start it positive, e.g. 0.1). Run it as a target; it has "
                         "no outputs."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Adagrad>("apply_adagrad", /*sparse=*/false));

TFG_REGISTER_OP(OpDefBuilder("sparse_apply_adagrad")
                    .VariableInput("var", "T")
                    .VariableInput("accum", "T")
                    .Input("lr", "T")
                    .Input("grad", "T")
                    .Input("indices", "Tindices")
                    .Attr("update_slots", AttrType::kBool, true, kUpdateSlotsDoc)
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .Stateful()
                    .SetShapeFn(train::ApplyShapeFn)
                    .NoGradient("optimizer update")
                    .Doc("apply_adagrad on the rows named by `indices` only (grad has shape indices.shape + "
                         "var.shape[1:]); gradient rows of repeated indices are summed first."));
TFG_REGISTER_KERNEL(train::ApplyKernelDef<Adagrad>("sparse_apply_adagrad", /*sparse=*/true));

}  // namespace tfg
