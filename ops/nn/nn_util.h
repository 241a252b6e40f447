// Small helpers shared by the nn kernels: running a float computation on
// f16/f32/f64 tensors (f16 is widened to f32 and rounded once at the end),
// and reading attrs.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"

namespace tfg::nn {

// The op's name for messages.
inline const std::string& OpName(const OpKernelContext& ctx) { return ctx.info().op->name; }

// Values of a float tensor as f32 (for f16 inputs).
std::vector<float> Widen(const Tensor& t);
// Rounds `v` into the f16 tensor `t` (same element count).
void Narrow(const std::vector<float>& v, Tensor* t);

// A pointer to the values of float tensor `t` as compute type C: the tensor
// itself for f32/f64, a widened copy for f16.
template <typename C>
class FloatView {
 public:
  explicit FloatView(const Tensor& t) {
    if constexpr (std::is_same_v<C, float>) {
      if (t.dtype() == DType::kF16) {
        copy_ = Widen(t);
        ptr_ = copy_.data();
        return;
      }
    }
    ptr_ = t.data<C>();
  }
  const C* get() const { return ptr_; }

 private:
  std::vector<float> copy_;
  const C* ptr_ = nullptr;
};

// A writable f32/f64 view of output `t`, written back on Finish() for f16.
template <typename C>
class FloatOut {
 public:
  explicit FloatOut(Tensor* t) : t_(t) {
    if constexpr (std::is_same_v<C, float>) {
      if (t->dtype() == DType::kF16) {
        copy_.resize(static_cast<size_t>(t->num_elements()));
        ptr_ = copy_.data();
        return;
      }
    }
    ptr_ = t->data<C>();
  }
  C* get() const { return ptr_; }
  void Finish() {
    if (!copy_.empty()) Narrow(copy_, t_);
  }

 private:
  Tensor* t_;
  std::vector<float> copy_;
  C* ptr_ = nullptr;
};

// Calls fn(C{}) with C = float for f16/f32 and double for f64; any other
// dtype is an Unimplemented error naming the op.
template <typename Fn>
Status DispatchFloat(const std::string& op, DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF16:
    case DType::kF32: fn(float{}); return Status::OK();
    case DType::kF64: fn(double{}); return Status::OK();
    default: return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(dtype));
  }
}

// An attr the graph guarantees (defaults are filled before kernels run).
template <typename T>
Result<T> GetAttr(const AttrMap& attrs, const std::string& op, const std::string& name) {
  const T* v = FindAttr<T>(attrs, name);
  if (v == nullptr) return Internal("{}: attribute '{}' is missing", op, name);
  return *v;
}

// The gradient function of a gradient helper whose own derivative is not
// written: differentiating through it is an Unimplemented error naming the
// op (never a silent zero, which NoGradient would give).
GradFn NoSecondDerivative(std::string op);

}  // namespace tfg::nn
