// Machinery shared by the optimizer apply ops (ops/train/apply_*.cc):
// finding and locking the op's variables, checking them against the
// gradient, copy-on-write, reading scalar hyper-parameters, and grouping the
// rows of a sparse update. The kernel template that drives an update rule
// is in apply_kernel.h.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/kernel.h"
#include "ops/core/resource_mgr.h"
#include "ops/state/state_util.h"

namespace tfg::train {

// f16 variables are updated in f32 and rounded once per element.
template <typename T>
using ComputeT = std::conditional_t<std::is_same_v<T, half>, float, T>;

// The op's variable parameters (VariableInput), in declaration order; each
// names its variable by the string attrs `<param>` and `<param>_container`.
class VariableParams {
 public:
  Status Init(const KernelConstruction& c);
  size_t size() const { return refs_.size(); }
  const state::VariableRef& ref(size_t i) const { return refs_[i]; }
  const std::string& param(size_t i) const { return params_[i]; }

 private:
  std::vector<std::string> params_;
  std::vector<state::VariableRef> refs_;
};

// The op's variables, looked up and held locked for this object's lifetime.
// Locks are taken in address order, so concurrent steps that update
// overlapping sets of variables never deadlock.
class LockedVariables {
 public:
  // Also checks that every variable is initialized, holds `dtype`, and has
  // the shape of the first (the slots have the shape of `var`).
  static Result<LockedVariables> Lock(OpKernelContext& ctx, const std::string& op, const VariableParams& params,
                                      DType dtype);

  const Tensor& value(size_t i) const { return vars_[i]->value; }
  const TensorShape& shape() const { return value(0).shape(); }
  template <typename T>
  T* data(size_t i) const { return vars_[i]->value.data<T>(); }

  // grad must have the variable's shape.
  Status CheckDenseGrad(const Tensor& grad) const;
  // The variable has rows, and grad has shape indices.shape + var.shape[1:].
  Status CheckSparseGrad(const Tensor& grad, const Tensor& indices) const;
  // Elements per row of the variable (0 for an empty variable).
  int64_t row_width() const;

  // Copy-on-write: gives every variable a buffer no reader shares, so a
  // reader holding the old value never sees it half-updated. Call after all
  // checks (an error must leave the variables untouched). No new reader can
  // appear while we hold the locks.
  Status MakeWritable(OpKernelContext& ctx);

 private:
  Status CheckValues(DType dtype) const;

  std::string op_;
  const VariableParams* params_ = nullptr;
  std::vector<std::shared_ptr<Variable>> vars_;     // in parameter order
  std::vector<std::unique_lock<std::mutex>> locks_;  // in address order
};

// Scalar input `index` (named `name` in messages) as the compute type.
template <typename T>
Result<ComputeT<T>> ReadScalar(const OpKernelContext& ctx, const std::string& op, int index, const char* name) {
  const Tensor& t = ctx.input(index);
  if (t.rank() != 0) return InvalidArgument("{}: {} must be a scalar, but has shape {}", op, name, t.shape().ToString());
  return static_cast<ComputeT<T>>(t.scalar<T>());
}

// The rows a sparse update touches: each distinct variable row once, with
// the rows of grad (positions in the flattened indices) that name it.
struct SparseRows {
  std::vector<int64_t> rows;     // distinct variable rows, ascending
  std::vector<int64_t> begin;    // rows.size() + 1 offsets into `sources`
  std::vector<int64_t> sources;  // grad rows grouped by variable row, each group in position order
};
// Error when an index is outside [0, num_rows), naming it, its position and
// the row count.
Result<SparseRows> GroupRows(const std::string& op, const Tensor& indices, int64_t num_rows, const std::string& var);

// x[i] = sqrt(x[i]) with SIMD: std::sqrt in a loop does not vectorize
// while the compiler must keep its errno side effect.
void SqrtInPlace(float* x, int64_t n);
void SqrtInPlace(double* x, int64_t n);

// Elements per block of an update rule's loops: the scratch row of square
// roots lives on the stack and the block stays in L1 between passes.
inline constexpr int64_t kBlock = 256;

// Shape function of every apply op: no outputs; hyper-parameters (inputs
// other than grad and indices) must be scalars; for sparse ops grad's
// leading dimensions must be those of indices.
Status ApplyShapeFn(ShapeContext& c);

}  // namespace tfg::train
