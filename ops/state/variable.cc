// variable(dtype, shape, container, shared_name): reads a persistent
// variable. Its state lives in the session's ResourceMgr under
// (container, shared_name), so several read nodes (e.g. one inside
// `with deps(...)`) and the assign ops all see the same value.
#include "ops/core/op_registry.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

Status VariableShapeFn(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  return Status::OK();
}

// The output shares the variable's buffer; an assign that runs while a
// reader still holds it writes a new buffer instead (see assign.cc).
class VariableKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    dtype_ = c.output_types[0];
    return ref_.Init(c);
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, ref_.Lookup(ctx));
    Tensor value;
    {
      std::lock_guard<std::mutex> lock(var->mu);
      value = var->value;
    }
    if (!value.IsInitialized()) return ref_.Uninitialized();
    if (value.dtype() != dtype_) {
      return InvalidArgument("variable '{}' holds {} but is read as {}", ref_.name, value.DebugString(),
                             DTypeName(dtype_));
    }
    if (!ref_.declared_shape.IsCompatibleWith(value.shape())) {
      return InvalidArgument("variable '{}' holds {} but is declared {}", ref_.name, value.DebugString(),
                             state::TypeAndShape(dtype_, ref_.declared_shape));
    }
    ctx.set_output(0, std::move(value));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  state::VariableRef ref_;
  DType dtype_ = DType::kInvalid;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("variable")
                    .TypeAttr("dtype", AllTypes())
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "declared shape")
                    .Attr("container", AttrType::kString, std::string(), "reset(container) clears it")
                    .Attr("shared_name", AttrType::kString, std::string(),
                          "name the state is kept under; empty: the node's name")
                    .Output("value", "dtype")
                    .Stateful()
                    .SetShapeFn(VariableShapeFn)
                    .NoGradient("variables are the leaves gradients are taken with respect to")
                    .Doc("Reads the current value of a persistent variable. Fails when the variable was never "
                         "assigned (call init() first)."));
TFG_REGISTER_KERNEL(KernelDef("variable", DeviceType::kCpu).Create<VariableKernel>());

}  // namespace tfg
