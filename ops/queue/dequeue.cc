// dequeue(handle): takes one element from a queue, waiting while it is
// empty.
#include "ops/core/cancellation.h"
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class DequeueKernel : public queue::QueueWaitKernel {
 public:
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    auto q = LookupQueue(ctx, ctx.input(0));
    if (!q.ok()) return done(q.status());
    std::shared_ptr<QueueInterface> from = *q;
    from->TryDequeue(ctx.step().cancellation, [&ctx, from, done = std::move(done)](Result<QueueInterface::Tuple> r) {
      if (!r.ok()) return done(r.status());
      done(queue::SetDequeueOutputs(ctx, *from, std::move(*r)));
    });
  }
};

Status DequeueShapeFn(ShapeContext& c) { return queue::DequeueShapes(c, std::nullopt); }

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("dequeue")
                    .Input("handle", "string")
                    .OutputList("components", "component_types", "")
                    .Attr("component_types", AttrType::kTypeList, std::nullopt,
                          "the queue's dtypes: one output per component")
                    .Attr("component_shapes", AttrType::kShapeList, std::vector<PartialShape>{},
                          "the queue's declared shapes, for shape inference")
                    .Stateful()
                    .SetShapeFn(DequeueShapeFn)
                    .NoGradient("queues pass values along; no gradient flows through them")
                    .Doc("Takes one element from the queue: the tensor itself with one component, else a list. "
                         "Waits while the queue is empty; fails with OutOfRange once it is closed and empty."));
TFG_REGISTER_KERNEL(KernelDef("dequeue", DeviceType::kCpu).Create<DequeueKernel>());

}  // namespace tfg
