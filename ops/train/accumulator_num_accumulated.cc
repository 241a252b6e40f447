// accumulator_num_accumulated(handle): how many gradients an accumulator
// holds for its current global step.
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/train/accumulator.h"

namespace tfg {
namespace {

class AccumulatorNumAccumulatedKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ConditionalAccumulator> acc, LookupAccumulator(ctx.resources(), ctx.input(0)));
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(acc->num_accumulated())));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("accumulator_num_accumulated")
                    .Input("handle", "string")
                    .Output("num_accumulated", "i32")
                    .Stateful()
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("integer output")
                    .Doc("The number of gradients the accumulator holds for its current global step (stale ones "
                         "are not counted), when this runs."));
TFG_REGISTER_KERNEL(KernelDef("accumulator_num_accumulated", DeviceType::kCpu)
                        .Create<AccumulatorNumAccumulatedKernel>());

}  // namespace tfg
