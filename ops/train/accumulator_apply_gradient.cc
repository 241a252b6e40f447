// accumulator_apply_gradient(handle, local_step, gradient): hands a
// replica's gradient to an accumulator, tagged with the global step the
// replica read its variables at; a stale one is dropped.
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/train/accumulator.h"

namespace tfg {
namespace {

class AccumulatorApplyGradientKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ConditionalAccumulator> acc, LookupAccumulator(ctx.resources(), ctx.input(0)));
    const Tensor& step = ctx.input(1);
    if (step.num_elements() != 1) {
      return InvalidArgument("local_step must be a scalar, got {}", step.DebugString());
    }
    return acc->ApplyGradient(step.scalar<int64_t>(), ctx.input(2)).status();
  }
  bool IsExpensive() const override { return false; }
};

Status AccumulatorApplyGradientShapeFn(ShapeContext& c) {
  if (c.input(1).known_rank() && c.input(1).rank() != 0) {
    return InvalidArgument("local_step must be a scalar, got shape {}", c.input(1).ToString());
  }
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("accumulator_apply_gradient")
                    .Input("handle", "string")
                    .Input("local_step", "i64")
                    .Input("gradient", "dtype")
                    .TypeAttr("dtype", {DType::kF32, DType::kF64})
                    .Stateful()
                    .SetShapeFn(AccumulatorApplyGradientShapeFn)
                    .NoGradient("it hands a gradient over; nothing flows back through it")
                    .Doc("Adds gradient to the accumulator when local_step is at least the accumulator's "
                         "global step; otherwise the gradient is stale (computed from variables an update has "
                         "since changed) and is dropped. The gradient must have the accumulator's dtype and "
                         "shape. Run it as a target; it has no outputs."));
TFG_REGISTER_KERNEL(KernelDef("accumulator_apply_gradient", DeviceType::kCpu)
                        .Create<AccumulatorApplyGradientKernel>());

}  // namespace tfg
