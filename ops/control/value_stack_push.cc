// value_stack_push(handle, index..., value): saves a forward loop's value for
// iteration `index` (one index per enclosing loop) and passes it on.
#include "ops/control/value_stack.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class StackPushKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ValueStack> s, stack::Lookup(ctx, ctx.input(0)));
    const int value = ctx.num_inputs() - 1;
    TFG_ASSIGN_OR_RETURN(StackKey key, stack::KeyOf(ctx, 1, value - 1));
    TFG_RETURN_IF_ERROR(s->Push(key, ctx.input(value)));
    ctx.set_output(0, ctx.input(value));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

Status PushShape(ShapeContext& c) {
  c.set_output(0, c.input(c.num_inputs() - 1));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("value_stack_push")
                    .Input("handle", "string")
                    .InputList("index", "i64", "depth")
                    .Input("value", "T")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .Stateful()
                    .SetShapeFn(PushShape)
                    .NoGradient("saves a value for a gradient; not differentiated itself")
                    .Doc("Saves value in a stack under index (a forward iteration; one per loop, outermost first) and "
                         "outputs it. Built by grad() through a while_loop."));
TFG_REGISTER_KERNEL(KernelDef("value_stack_push", DeviceType::kCpu).Create<StackPushKernel>());

}  // namespace tfg
