#include "ops/state/state_util.h"

#include "ops/core/op_registry.h"

namespace tfg::state {

std::string TypeAndShape(DType dtype, const PartialShape& shape) {
  if (!shape.known_rank()) return fmt::format("{} (any shape)", DTypeName(dtype));
  return fmt::format("{}{}", DTypeName(dtype), shape.ToString());
}

Status VariableRef::Init(const KernelConstruction& c) {
  if (const auto* s = c.attr<std::string>("container")) container = *s;
  const auto* shared = c.attr<std::string>("shared_name");
  name = (shared && !shared->empty()) ? *shared : c.node_name;
  if (const auto* s = c.attr<PartialShape>("shape")) declared_shape = *s;
  return Status::OK();
}

Result<std::shared_ptr<Variable>> VariableRef::Lookup(OpKernelContext& ctx) const {
  if (ctx.resources() == nullptr) {
    return Internal("variable '{}': this run has no resource manager to hold variables", name);
  }
  return ctx.resources()->LookupOrCreate<Variable>(container, name, [] { return std::make_shared<Variable>(); });
}

Status VariableRef::Uninitialized() const {
  return FailedPrecondition("variable '{}' is used before it is initialized; call init() first", name);
}

Status VariableRef::ShapeMismatch(std::string_view op, const TensorShape& value, const PartialShape& expected) const {
  return InvalidArgument("{}: value of shape {} does not match variable '{}' of shape {}", op, value.ToString(), name,
                         expected.ToString());
}

Status AssignShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  const std::string* name = c.attr<std::string>("shared_name");
  std::string var = name ? *name : "?";
  const DType* dtype = c.attr<DType>("dtype");
  if (dtype && *dtype != c.input_type(0)) {
    return InvalidArgument("{}: value has dtype {} but variable '{}' is {}", op, DTypeName(c.input_type(0)), var,
                           DTypeName(*dtype));
  }
  const bool* validate = c.attr<bool>("validate_shape");
  const PartialShape* declared = c.attr<PartialShape>("shape");
  if ((validate && !*validate) || declared == nullptr) {
    c.set_output(0, c.input(0));
    return Status::OK();
  }
  auto merged = c.input(0).Merge(*declared);
  if (!merged.ok()) {
    return InvalidArgument("{}: value of shape {} does not match variable '{}' of shape {}", op,
                           c.input(0).ToString(), var, declared->ToString());
  }
  c.set_output(0, *merged);
  return Status::OK();
}

}  // namespace tfg::state
