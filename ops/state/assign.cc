// assign(value, shared_name, ...): sets a variable; outputs the new value.
// The interpreter builds `W = variable(init)` as a `variable` node W plus an
// `assign` node "W/init" that init() runs.
#include "ops/core/op_registry.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

void CopyElements(const Tensor& from, Tensor& to) {
  if (from.dtype() == DType::kString) {
    for (int64_t i = 0; i < from.num_elements(); ++i) to.data<std::string>()[i] = from.data<std::string>()[i];
  } else if (from.bytes() > 0) {
    std::memcpy(to.raw_data(), from.raw_data(), from.bytes());
  }
}

class AssignKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const bool* v = c.attr<bool>("validate_shape")) validate_shape_ = *v;
    return ref_.Init(c);
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    if (validate_shape_ && !ref_.declared_shape.IsCompatibleWith(value.shape())) {
      return ref_.ShapeMismatch("assign", value.shape(), ref_.declared_shape);
    }
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, ref_.Lookup(ctx));
    std::lock_guard<std::mutex> lock(var->mu);
    Tensor& current = var->value;
    if (current.IsInitialized()) {
      if (current.dtype() != value.dtype()) {
        return InvalidArgument("assign: value has dtype {} but variable '{}' holds {}", DTypeName(value.dtype()),
                               ref_.name, current.DebugString());
      }
      if (validate_shape_ && current.shape() != value.shape()) {
        return ref_.ShapeMismatch("assign", value.shape(), PartialShape(current.shape()));
      }
    }
    TFG_RETURN_IF_ERROR(Store(ctx, value, current));
    ctx.set_output(0, current);
    return Status::OK();
  }

 private:
  // Takes the value's buffer when nobody else holds it, reuses the
  // variable's buffer when no reader holds that, else writes a new one:
  // a reader holding the old value never sees it change.
  static Status Store(OpKernelContext& ctx, const Tensor& value, Tensor& current) {
    if (value.RefCountIsOne()) {
      current = value;
      return Status::OK();
    }
    if (current.IsInitialized() && current.RefCountIsOne() && current.shape() == value.shape()) {
      CopyElements(value, current);
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(Tensor fresh, Tensor::Allocate(ctx.allocator(), value.dtype(), value.shape()));
    CopyElements(value, fresh);
    current = std::move(fresh);
    return Status::OK();
  }

  state::VariableRef ref_;
  bool validate_shape_ = true;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("assign")
                    .Input("value", "T")
                    .Attr("shared_name", AttrType::kString, std::nullopt, "the variable's name")
                    .Attr("container", AttrType::kString, std::string())
                    .Attr("validate_shape", AttrType::kBool, true,
                          "require the value's shape to equal the variable's")
                    .TypeAttr("T", AllTypes())
                    .Attr("dtype", AttrType::kType, AttrValue(std::monostate{}), "the variable's declared dtype")
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "the variable's declared shape")
                    .Output("output", "T")
                    .Stateful()
                    .SetShapeFn(state::AssignShapeFn)
                    .NoGradient("stateful")
                    .Doc("Sets the variable named `shared_name` to `value` and returns the new value."));
TFG_REGISTER_KERNEL(KernelDef("assign", DeviceType::kCpu).TypeConstraint({}, "T").Create<AssignKernel>());

}  // namespace tfg
