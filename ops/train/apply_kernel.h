// The kernel every apply op runs: it reads the rule's scalar
// hyper-parameters, locks and checks the variables, then runs the rule's
// fused update over every element (dense) or over the rows named by
// `indices` (sparse). Each op file defines only its update rule.
//
// A Rule provides:
//   static constexpr size_t kVars;                          // var, then its slots
//   static constexpr std::array<const char*, K> kScalars;   // hyper-parameter inputs
//   static constexpr int64_t kCost;                         // rough cycles per element
//   Status Init(const KernelConstruction&);                 // reads its attrs
//   template <typename T> Step<T> Prepare(const std::array<ComputeT<T>, K>&) const;
// where step(vars, at, g, n) updates elements [at, at + n) of every variable
// in `vars` (std::array<T*, kVars>) from gradient values g[0, n). g is const
// T*, or const ComputeT<T>* for the summed rows of repeated indices; it
// never aliases a variable (MakeWritable copied any shared buffer).
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/train/train_util.h"

namespace tfg::train {

// sum[0, width) = the sum of grad rows `sources[0, count)`, in compute type.
template <typename T, typename C>
void SumRows(const T* grad, const int64_t* sources, int64_t count, int64_t width, std::vector<C>& sum) {
  sum.assign(static_cast<size_t>(width), C(0));
  C* out = sum.data();
  for (int64_t k = 0; k < count; ++k) {
    const T* row = grad + sources[k] * width;
    for (int64_t j = 0; j < width; ++j) out[j] += static_cast<C>(row[j]);
  }
}

inline Result<int> FindInputIndex(const KernelConstruction& c, const char* name) {
  const int i = c.op->FindInput(name);
  if (i < 0) return Internal("{}: the op declares no input '{}'", c.op->name, name);
  return i;
}

template <typename Rule, typename T, bool kSparse>
class ApplyKernel final : public OpKernel {
  using C = ComputeT<T>;
  static constexpr size_t kNumScalars = Rule::kScalars.size();

 public:
  Status Init(const KernelConstruction& c) override {
    op_ = c.op->name;
    TFG_RETURN_IF_ERROR(vars_.Init(c));
    if (vars_.size() != Rule::kVars) {
      return Internal("{}: declares {} variables but its rule updates {}", op_, vars_.size(), Rule::kVars);
    }
    for (size_t i = 0; i < kNumScalars; ++i) {
      TFG_ASSIGN_OR_RETURN(scalars_[i], FindInputIndex(c, Rule::kScalars[i]));
    }
    TFG_ASSIGN_OR_RETURN(grad_, FindInputIndex(c, "grad"));
    if constexpr (kSparse) {
      TFG_ASSIGN_OR_RETURN(indices_, FindInputIndex(c, "indices"));
    }
    return rule_.Init(c);
  }

  Status Compute(OpKernelContext& ctx) override {
    std::array<C, kNumScalars> s{};
    for (size_t i = 0; i < kNumScalars; ++i) {
      TFG_ASSIGN_OR_RETURN(s[i], ReadScalar<T>(ctx, op_, scalars_[i], Rule::kScalars[i]));
    }
    const auto step = rule_.template Prepare<T>(s);
    TFG_ASSIGN_OR_RETURN(LockedVariables locked, LockedVariables::Lock(ctx, op_, vars_, kDTypeOf<T>));
    if constexpr (kSparse) {
      return Sparse(ctx, locked, step);
    } else {
      return Dense(ctx, locked, step);
    }
  }

 private:
  template <typename Step>
  Status Dense(OpKernelContext& ctx, LockedVariables& locked, const Step& step) const {
    const Tensor& grad = ctx.input(grad_);
    TFG_RETURN_IF_ERROR(locked.CheckDenseGrad(grad));
    TFG_RETURN_IF_ERROR(locked.MakeWritable(ctx));
    const std::array<T*, Rule::kVars> vars = Pointers(locked);
    const T* g = grad.data<T>();
    ctx.ParallelFor(grad.num_elements(), Rule::kCost, [&](int64_t b, int64_t e) { step(vars, b, g + b, e - b); });
    return Status::OK();
  }

  // Rows are distinct, so shards never race; repeated indices have their
  // gradient rows summed first (the gradient of the dense equivalent).
  template <typename Step>
  Status Sparse(OpKernelContext& ctx, LockedVariables& locked, const Step& step) const {
    const Tensor& grad = ctx.input(grad_);
    const Tensor& indices = ctx.input(indices_);
    TFG_RETURN_IF_ERROR(locked.CheckSparseGrad(grad, indices));
    TFG_ASSIGN_OR_RETURN(SparseRows rows, GroupRows(op_, indices, locked.shape().dim(0), vars_.ref(0).name));
    TFG_RETURN_IF_ERROR(locked.MakeWritable(ctx));
    const std::array<T*, Rule::kVars> vars = Pointers(locked);
    const int64_t width = locked.row_width();
    const T* g = grad.data<T>();
    const auto n = static_cast<int64_t>(rows.rows.size());
    ctx.ParallelFor(n, width * Rule::kCost + 1, [&](int64_t b, int64_t e) {
      std::vector<C> sum;  // one per shard, reused across its rows
      for (int64_t r = b; r < e; ++r) {
        const int64_t first = rows.begin[r];
        const int64_t count = rows.begin[r + 1] - first;
        const int64_t at = rows.rows[r] * width;
        if (count == 1) {
          step(vars, at, g + rows.sources[first] * width, width);
        } else {
          SumRows(g, rows.sources.data() + first, count, width, sum);
          step(vars, at, static_cast<const C*>(sum.data()), width);
        }
      }
    });
    return Status::OK();
  }

  static std::array<T*, Rule::kVars> Pointers(const LockedVariables& locked) {
    std::array<T*, Rule::kVars> p{};
    for (size_t i = 0; i < Rule::kVars; ++i) p[i] = locked.data<T>(i);
    return p;
  }

  std::string op_;
  VariableParams vars_;
  Rule rule_;
  std::array<int, kNumScalars> scalars_{};
  int grad_ = -1;
  int indices_ = -1;
};

// Picks the kernel for the node's dtype once, when the kernel is created.
template <typename Rule, bool kSparse>
Result<std::unique_ptr<OpKernel>> MakeApplyKernel(const KernelConstruction& c) {
  const DType* dtype = c.attr<DType>("T");
  std::unique_ptr<OpKernel> kernel;
  switch (dtype ? *dtype : DType::kInvalid) {
    case DType::kF16: kernel = std::make_unique<ApplyKernel<Rule, half, kSparse>>(); break;
    case DType::kF32: kernel = std::make_unique<ApplyKernel<Rule, float, kSparse>>(); break;
    case DType::kF64: kernel = std::make_unique<ApplyKernel<Rule, double, kSparse>>(); break;
    default:
      return Unimplemented("{}: no CPU kernel for dtype {}", c.op->name, dtype ? DTypeName(*dtype) : "<unset>");
  }
  TFG_RETURN_IF_ERROR(kernel->Init(c));
  return Result<std::unique_ptr<OpKernel>>(std::move(kernel));
}

// The CPU kernels (f16, f32, f64) of a dense or sparse apply op.
template <typename Rule>
KernelDef ApplyKernelDef(const char* op, bool sparse) {
  KernelDef def(op, DeviceType::kCpu);
  def.TypeConstraint(FloatTypes(), "T").Factory(sparse ? &MakeApplyKernel<Rule, true> : &MakeApplyKernel<Rule, false>);
  return def;
}

}  // namespace tfg::train
