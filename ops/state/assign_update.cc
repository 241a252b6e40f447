// assign_add(value, shared_name, ...) and assign_sub: update a variable in
// place by adding/subtracting `value`; output the new value.
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

template <typename T, bool kAdd>
void Update(OpKernelContext& ctx, const Tensor& current, const Tensor& delta, Tensor& target) {
  const T* a = current.data<T>();
  const T* b = delta.data<T>();
  T* out = target.data<T>();
  ctx.ParallelFor(current.num_elements(), 1, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = kAdd ? T(a[i] + b[i]) : T(a[i] - b[i]);
  });
}

template <bool kAdd>
class AssignUpdateKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override { return ref_.Init(c); }

  Status Compute(OpKernelContext& ctx) override {
    const char* op = kAdd ? "assign_add" : "assign_sub";
    const Tensor& delta = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, ref_.Lookup(ctx));
    std::lock_guard<std::mutex> lock(var->mu);
    Tensor& current = var->value;
    if (!current.IsInitialized()) return ref_.Uninitialized();
    if (current.dtype() != delta.dtype()) {
      return InvalidArgument("{}: value has dtype {} but variable '{}' holds {}", op, DTypeName(delta.dtype()),
                             ref_.name, current.DebugString());
    }
    if (current.shape() != delta.shape()) return ref_.ShapeMismatch(op, delta.shape(), PartialShape(current.shape()));
    // In place only when no reader holds the buffer (we hold the lock, so
    // no new reader can appear meanwhile).
    Tensor target;
    if (current.RefCountIsOne()) {
      target = current;
    } else {
      TFG_ASSIGN_OR_RETURN(target, Tensor::Allocate(ctx.allocator(), current.dtype(), current.shape()));
    }
    bool ok = TFG_DISPATCH_NUMBER(current.dtype(), T, (Update<T, kAdd>(ctx, current, delta, target)));
    if (!ok) return InvalidArgument("{}: dtype {} is not supported", op, DTypeName(current.dtype()));
    current = target;
    ctx.set_output(0, std::move(target));
    return Status::OK();
  }

 private:
  state::VariableRef ref_;
};

OpDefBuilder UpdateOp(const char* name, const char* doc) {
  return std::move(OpDefBuilder(name)
                       .Input("value", "T")
                       .Attr("shared_name", AttrType::kString, std::nullopt, "the variable's name")
                       .Attr("container", AttrType::kString, std::string())
                       .TypeAttr("T", NumberTypes())
                       .Attr("dtype", AttrType::kType, AttrValue(std::monostate{}), "the variable's declared dtype")
                       .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "the variable's declared shape")
                       .Output("output", "T")
                       .Stateful()
                       .SetShapeFn(state::AssignShapeFn)
                       .NoGradient("stateful")
                       .Doc(doc));
}

}  // namespace

TFG_REGISTER_OP(UpdateOp("assign_add", "Adds `value` to the variable named `shared_name`; returns the new value."));
TFG_REGISTER_OP(UpdateOp("assign_sub",
                         "Subtracts `value` from the variable named `shared_name`; returns the new value."));
TFG_REGISTER_KERNEL(
    KernelDef("assign_add", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<AssignUpdateKernel<true>>());
TFG_REGISTER_KERNEL(
    KernelDef("assign_sub", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<AssignUpdateKernel<false>>());

}  // namespace tfg
