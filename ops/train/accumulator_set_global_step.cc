// accumulator_set_global_step(handle, new_global_step): sets the step
// below which gradients are stale, e.g. to a restored global step.
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/train/accumulator.h"

namespace tfg {
namespace {

class AccumulatorSetGlobalStepKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ConditionalAccumulator> acc, LookupAccumulator(ctx.resources(), ctx.input(0)));
    const Tensor& step = ctx.input(1);
    if (step.num_elements() != 1) {
      return InvalidArgument("new_global_step must be a scalar, got {}", step.DebugString());
    }
    acc->SetGlobalStep(step.scalar<int64_t>());
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("accumulator_set_global_step")
                    .Input("handle", "string")
                    .Input("new_global_step", "i64")
                    .Stateful()
                    .SetShapeFn(shape_fns::NoOutputs)
                    .NoGradient("it sets a counter")
                    .Doc("Sets the accumulator's global step: later gradients tagged with a smaller local step "
                         "are dropped. Gradients it already holds stay. Run it as a target."));
TFG_REGISTER_KERNEL(KernelDef("accumulator_set_global_step", DeviceType::kCpu)
                        .Create<AccumulatorSetGlobalStepKernel>());

}  // namespace tfg
