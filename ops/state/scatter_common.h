// What the sparse variable writes share (ops/state/scatter.cc: scatter_add,
// scatter_sub; scatter_nd_update.cc: scatter_update, scatter_nd_*): their
// declaration, the dtype check of their shape functions, and the kernels'
// checks of the variable and their copy-on-write of its slices.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/state/state_util.h"

namespace tfg::state::scatter {

enum class Write { kUpdate, kAdd, kSub };

// The declaration of a scatter op: values, indices, the variable's
// shared_name and container, its declared dtype and shape; stateful, no
// gradient.
OpDefBuilder ScatterOpDef(const char* name, ShapeFn shape_fn, const char* doc);

// The values' dtype must be the variable's declared one, when declared.
Status CheckDeclaredDtype(ShapeContext& c);

// The variable's value `current` (locked by the caller) must be initialized
// and hold values' dtype.
Status CheckVariable(const char* op, const VariableRef& ref, const Tensor& current, const Tensor& values);

// Writes row i of values (`width` wide) at slice slices[i] of `current`
// (locked by the caller): in place when no reader holds its buffer, else
// into a copy that replaces it. Output 0 is the new value.
Status WriteSlices(OpKernelContext& ctx, const char* op, const VariableRef& ref, Write write,
                   const std::vector<int64_t>& slices, const Tensor& values, int64_t width, Tensor& current);

}  // namespace tfg::state::scatter
