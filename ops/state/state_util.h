// Helpers shared by the state ops (placeholder, variable, assign*): how a
// declared type is written in messages, and where a variable lives.
#pragma once

#include <memory>
#include <string>

#include "ops/core/kernel.h"
#include "ops/core/resource_mgr.h"

namespace tfg::state {

// "f32[?, 784]", or "f32 (any shape)" for an unknown rank.
std::string TypeAndShape(DType dtype, const PartialShape& shape);

// The (container, shared_name) a variable op refers to; an empty
// shared_name means the node's own name.
struct VariableRef {
  std::string container;
  std::string name;
  PartialShape declared_shape;  // unknown rank when the attr is absent

  Status Init(const KernelConstruction& c);
  // The variable, created empty on first use.
  Result<std::shared_ptr<Variable>> Lookup(OpKernelContext& ctx) const;
  // FailedPrecondition: "variable 'W' is used before it is initialized; ...".
  Status Uninitialized() const;
  // InvalidArgument naming the variable and both shapes.
  Status ShapeMismatch(std::string_view op, const TensorShape& value, const PartialShape& expected) const;
};

// Shape function of assign/assign_add/assign_sub: the output has the value's
// shape, which must match the declared `shape` unless validate_shape=false;
// the value's dtype must equal the declared `dtype` when given.
Status AssignShapeFn(ShapeContext& c);

}  // namespace tfg::state
