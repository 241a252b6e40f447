// enqueue(handle, components): adds one element (a tuple of tensors) to a
// queue, waiting while it is full.
#include "ops/core/cancellation.h"
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class EnqueueKernel : public queue::QueueWaitKernel {
 public:
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    auto q = LookupQueue(ctx, ctx.input(0));
    if (!q.ok()) return done(q.status());
    QueueInterface::Tuple element;
    for (int i = 1; i < ctx.num_inputs(); ++i) element.push_back(ctx.input(i));
    (*q)->TryEnqueue(std::move(element), ctx.step().cancellation, std::move(done));
  }
};

}  // namespace

TFG_REGISTER_OP(queue::EnqueueOpDef("enqueue")
                    .Doc("Adds one element, one tensor per component, to the queue; waits (without holding a "
                         "thread) while the queue is full. Fails with Aborted when the queue is closed, "
                         "Cancelled when the run is."));
TFG_REGISTER_KERNEL(KernelDef("enqueue", DeviceType::kCpu).Create<EnqueueKernel>());

}  // namespace tfg
