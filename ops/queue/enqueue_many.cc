// enqueue_many(handle, components): adds the slices along dimension 0 of
// each component as separate elements.
#include "ops/core/cancellation.h"
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class EnqueueManyKernel : public queue::QueueWaitKernel {
 public:
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    auto q = LookupQueue(ctx, ctx.input(0));
    if (!q.ok()) return done(q.status());
    QueueInterface::Tuple batch;
    for (int i = 1; i < ctx.num_inputs(); ++i) batch.push_back(ctx.input(i));
    (*q)->TryEnqueueMany(std::move(batch), ctx.step().cancellation, std::move(done));
  }
};

}  // namespace

TFG_REGISTER_OP(queue::EnqueueOpDef("enqueue_many")
                    .Doc("Adds the slices along dimension 0 of the components as elements (all components "
                         "must have the same size there); waits while the queue is full. Fails with Aborted "
                         "when the queue is closed."));
TFG_REGISTER_KERNEL(KernelDef("enqueue_many", DeviceType::kCpu).Create<EnqueueManyKernel>());

}  // namespace tfg
