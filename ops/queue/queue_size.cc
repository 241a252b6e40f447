// queue_size(handle): how many elements a queue holds now.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class QueueSizeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> q, LookupQueue(ctx, ctx.input(0)));
    ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(q->size())));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("queue_size")
                    .Input("handle", "string")
                    .Output("size", "i32")
                    .Stateful()
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("integer output")
                    .Doc("The number of elements the queue holds when this runs (an i32 scalar). size(q) on a "
                         "queue handle is the same."));
TFG_REGISTER_KERNEL(KernelDef("queue_size", DeviceType::kCpu).Create<QueueSizeKernel>());

}  // namespace tfg
