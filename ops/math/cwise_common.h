// Shared plumbing of the elementwise op families: per-dtype kernel function
// tables, the kernel object that runs one, and their shape functions.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/scalar_fn.h"

namespace tfg {

// One kernel body for one dtype: computes the node's outputs.
// `cost` is the rough cycle count per element, for ParallelFor.
using CwiseFn = Status (*)(OpKernelContext& ctx, int64_t cost);

// Kernel bodies indexed by the dtype they are dispatched on (null: none),
// and the same math on one number for the scalar loop path.
struct CwiseFns {
  std::array<CwiseFn, static_cast<size_t>(DType::kString) + 1> by_dtype{};
  std::array<ScalarFn, static_cast<size_t>(DType::kString) + 1> scalar{};
  constexpr CwiseFn& operator[](DType d) { return by_dtype[static_cast<size_t>(d)]; }
  constexpr CwiseFn operator[](DType d) const { return by_dtype[static_cast<size_t>(d)]; }
};

// A kernel that runs `fn`.
std::unique_ptr<OpKernel> MakeCwiseKernel(CwiseFn fn, int64_t cost);

// A kernel factory that picks the body for the dtype of input `dispatch_input`
// (e.g. 1 for where, whose input 0 is the bool condition).
KernelFactory CwiseFactory(CwiseFns fns, int64_t cost, int dispatch_input = 0);

// Registers the CPU kernel of `op` and its scalar functions.
void RegisterCwiseKernel(const std::string& op, const CwiseFns& fns, int64_t cost, int dispatch_input = 0);

// Output 0 = NumPy broadcast of all inputs; errors name the op.
Status BroadcastShapeFn(ShapeContext& c);
// Output 0 = input 0.
Status SameShapeFn(ShapeContext& c);

// The run-time broadcast of two concrete shapes; the error names the op.
Result<TensorShape> BroadcastForOp(const OpKernelContext& ctx, const TensorShape& a, const TensorShape& b);

}  // namespace tfg
