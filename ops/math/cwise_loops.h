// The elementwise loops behind the cwise families, templated on a functor
// from cwise_functors.h and the storage types. Same-shape and scalar cases
// run as tight contiguous loops the compiler vectorizes; everything else
// walks a BroadcastPlan. Large tensors are split with ParallelFor.
//
// Include only from the .cc files that instantiate these (cwise_binary.cc,
// comparison.cc, cwise_unary.cc), once per functor and dtype.
#pragma once

#include <algorithm>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/core/forward_input.h"
#include "ops/core/kernel.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_functors.h"

namespace tfg {

// f16 is stored as half and computed as float.
template <typename T> struct ComputeTypeOf { using type = T; };
template <> struct ComputeTypeOf<half> { using type = float; };
template <typename T> using ComputeType = typename ComputeTypeOf<T>::type;

// The compute-type value of an element; a reference when no conversion is
// needed (so strings are not copied).
template <typename T>
inline decltype(auto) Load(const T& v) {
  if constexpr (std::is_same_v<ComputeType<T>, T>) {
    return (v);
  } else {
    return static_cast<ComputeType<T>>(v);
  }
}

// out[i] = f(a[i * sa], b[i * sb]) for i < n, with sa, sb in {0, 1}
// specialised so each case is a simple vectorizable loop.
template <typename F, typename T, typename Out>
inline void BinaryRun(const T* a, int64_t sa, const T* b, int64_t sb, Out* out, int64_t n) {
  const F f{};
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(a[i]), Load(b[i])));
  } else if (sa == 1 && sb == 0) {
    const auto bv = Load(b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(a[i]), bv));
  } else if (sa == 0 && sb == 1) {
    const auto av = Load(a[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(av, Load(b[i])));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(f(Load(a[i * sa]), Load(b[i * sb])));
  }
}

inline const std::string& OpName(const OpKernelContext& ctx) {
  return ctx.info().op ? ctx.info().op->name : ctx.info().node_name;
}

// The checks integer division and power need before the loop runs (the
// loop itself cannot fail).
template <typename F, typename T>
Status CheckSecondOperand(const OpKernelContext& ctx, const Tensor& b) {
  if constexpr (std::is_integral_v<T> && requires { F::kCheck; }) {
    const T* p = b.data<T>();
    const T* end = p + b.num_elements();
    if constexpr (F::kCheck == functor::Check::kNonZeroDivisor) {
      if (std::find(p, end, T(0)) != end) return InvalidArgument("{}: integer division by zero", OpName(ctx));
    } else if constexpr (F::kCheck == functor::Check::kNonNegativeExponent) {
      const T* neg = std::find_if(p, end, [](T v) { return v < 0; });
      if (neg != end) {
        return InvalidArgument("{}: integers to negative integer powers are not allowed (exponent {})",
                               OpName(ctx), *neg);
      }
    }
  }
  return Status::OK();
}

// Tensors this small are computed in place: wrapping the loop for
// ParallelFor costs a heap allocation, more than the loop (a scalar
// while_loop runs millions of these).
inline constexpr int64_t kInlineElements = 16;

// Output 0 = f(input 0, input 1) with NumPy broadcasting; inputs of type T,
// output of type Out (T, or bool for comparisons).
template <typename F, typename T, typename Out>
Status ComputeBinary(OpKernelContext& ctx, int64_t cost) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  TFG_ASSIGN_OR_RETURN(TensorShape shape, BroadcastForOp(ctx, a.shape(), b.shape()));
  // An input of the output's size that nothing else holds is overwritten
  // in place: each element is read before the same one is written.
  TFG_ASSIGN_OR_RETURN(Tensor * out, ForwardInputOrAllocate(ctx, {0, 1}, 0, shape));
  const int64_t n = out->num_elements();
  if (n == 0) return Status::OK();
  TFG_RETURN_IF_ERROR((CheckSecondOperand<F, T>(ctx, b)));
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  Out* po = out->data<Out>();
  const int64_t na = a.num_elements(), nb = b.num_elements();
  if ((na == n || na == 1) && (nb == n || nb == 1)) {
    // Each side has the output's layout or is a single element.
    const int64_t sa = na == n ? 1 : 0, sb = nb == n ? 1 : 0;
    if (n <= kInlineElements) {
      BinaryRun<F>(pa, sa, pb, sb, po, n);
      return Status::OK();
    }
    ctx.ParallelFor(n, cost, [=](int64_t s, int64_t e) {
      BinaryRun<F>(pa + s * sa, sa, pb + s * sb, sb, po + s, e - s);
    });
    return Status::OK();
  }
  const BroadcastPlan plan(shape, {&a.shape(), &b.shape()});
  const int64_t sa = plan.inner_stride(0), sb = plan.inner_stride(1);
  ctx.ParallelFor(n, cost, [&](int64_t s, int64_t e) {
    plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
      BinaryRun<F>(pa + off[0], sa, pb + off[1], sb, po + o, len);
    });
  });
  return Status::OK();
}

// Output 0 = f(input 0), same shape; Out is T, or bool for logical_not.
template <typename F, typename T, typename Out = T>
Status ComputeUnary(OpKernelContext& ctx, int64_t cost) {
  const Tensor& x = ctx.input(0);
  TFG_ASSIGN_OR_RETURN(Tensor * out, ForwardInputOrAllocate(ctx, {0}, 0, x.shape()));
  const int64_t n = out->num_elements();
  if (n == 0) return Status::OK();
  const T* px = x.data<T>();
  Out* po = out->data<Out>();
  if (n <= kInlineElements) {
    const F f{};
    for (int64_t i = 0; i < n; ++i) po[i] = static_cast<Out>(f(Load(px[i])));
    return Status::OK();
  }
  ctx.ParallelFor(n, cost, [=](int64_t s, int64_t e) {
    const F f{};
    for (int64_t i = s; i < e; ++i) po[i] = static_cast<Out>(f(Load(px[i])));
  });
  return Status::OK();
}

}  // namespace tfg

namespace tfg {

// ---- the same math on one number (ops/core/scalar_fn.h)

template <typename F, typename T, typename Out>
bool ScalarBinary(const ScalarValue* in, ScalarValue* out) {
  const T a = in[0].get<T>(), b = in[1].get<T>();
  if constexpr (std::is_integral_v<T> && requires { F::kCheck; }) {
    if constexpr (F::kCheck == functor::Check::kNonZeroDivisor) {
      if (b == T(0)) return false;
    } else if constexpr (F::kCheck == functor::Check::kNonNegativeExponent) {
      if (b < T(0)) return false;
    }
  }
  out->set<Out>(static_cast<Out>(F{}(a, b)));
  return true;
}

template <typename F, typename T, typename Out>
bool ScalarUnary(const ScalarValue* in, ScalarValue* out) {
  out->set<Out>(static_cast<Out>(F{}(in[0].get<T>())));
  return true;
}

// fns[dtype of T] = the kernel body, and its scalar function where T has one.
template <typename F, typename T, typename Out>
void AddBinary(CwiseFns& fns) {
  constexpr DType d = kDTypeOf<T>;
  fns[d] = &ComputeBinary<F, T, Out>;
  if constexpr (kIsScalarValueType<T>) fns.scalar[static_cast<size_t>(d)] = &ScalarBinary<F, T, Out>;
}

template <typename F, typename T, typename Out = T>
void AddUnary(CwiseFns& fns) {
  constexpr DType d = kDTypeOf<T>;
  fns[d] = &ComputeUnary<F, T, Out>;
  if constexpr (kIsScalarValueType<T>) fns.scalar[static_cast<size_t>(d)] = &ScalarUnary<F, T, Out>;
}

}  // namespace tfg
