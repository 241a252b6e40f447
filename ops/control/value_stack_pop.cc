// value_stack_pop(handle, index...): takes back the value a forward loop saved for
// iteration `index`, in the backward loop that differentiates it.
#include "ops/control/value_stack.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class StackPopKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    dtype_ = c.output_types[0];
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ValueStack> s, stack::Lookup(ctx, ctx.input(0)));
    TFG_ASSIGN_OR_RETURN(StackKey key, stack::KeyOf(ctx, 1, ctx.num_inputs() - 1));
    TFG_ASSIGN_OR_RETURN(Tensor t, s->Pop(key));
    if (t.dtype() != dtype_) return Internal("value_stack_pop expected {} but got {}", DTypeName(dtype_), t.DebugString());
    ctx.set_output(0, std::move(t));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kInvalid;
};

Status PopShape(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("element_shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("value_stack_pop")
                    .Input("handle", "string")
                    .InputList("index", "i64", "depth")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .Attr("element_shape", AttrType::kShape, PartialShape::Unknown(), "the saved value's shape")
                    .Stateful()
                    .SetShapeFn(PopShape)
                    .NoGradient("reads a saved value for a gradient; not differentiated itself")
                    .Doc("Takes the value saved in a stack under index out of it. Built by grad() through a "
                         "while_loop."));
TFG_REGISTER_KERNEL(KernelDef("value_stack_pop", DeviceType::kCpu).Create<StackPopKernel>());

}  // namespace tfg
