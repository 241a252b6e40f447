// control_trigger(): does nothing, and unlike every other op it runs even
// when a control input is dead. grad() through a while_loop uses it to wait
// for the iteration's saves, some of which are dead when they sit in the
// branch of a cond that did not run (interp/runtime/executor_frames.cc).
#include "ops/core/control_flow.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class ControlTriggerKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return Status::OK(); }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kControlTriggerOp)
                    .SetShapeFn(shape_fns::NoOutputs)
                    .NoGradient("no outputs")
                    .Doc("Does nothing; runs once all its control inputs have finished, live or dead. Built by "
                         "grad() through a while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kControlTriggerOp, DeviceType::kCpu).Create<ControlTriggerKernel>());

}  // namespace tfg
