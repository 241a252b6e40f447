// no_op(): does nothing. With control inputs it is a join point:
// `group(a, b)` builds a no_op that runs after a and b.
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class NoOpKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext&) override { return Status::OK(); }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("no_op")
                    .SetShapeFn(shape_fns::NoOutputs)
                    .NoGradient("no outputs")
                    .Doc("Does nothing; run it as a target to run its control inputs (`group`)."));
TFG_REGISTER_KERNEL(KernelDef("no_op", DeviceType::kCpu).Create<NoOpKernel>());

}  // namespace tfg
