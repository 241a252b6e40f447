// dequeue_up_to(handle, n): like dequeue_many, but a closed queue hands out
// what it has left.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class DequeueUpToKernel : public queue::DequeueBatchKernel {
 public:
  DequeueUpToKernel() : DequeueBatchKernel(true) {}
};

Status DequeueUpToShapeFn(ShapeContext& c) {
  const auto* n = c.attr<int64_t>("n");
  if (n && *n < 1) return InvalidArgument("n must be at least 1, got {}", *n);
  return queue::DequeueShapes(c, PartialShape::kUnknown);
}

}  // namespace

TFG_REGISTER_OP(queue::DequeueBatchOpDef("dequeue_up_to", "most elements per batch")
                    .SetShapeFn(DequeueUpToShapeFn)
                    .Doc("Like dequeue_many, but once the queue is closed it hands out the last elements even "
                         "when fewer than n are left (the final, smaller batch); OutOfRange only when none are."));
TFG_REGISTER_KERNEL(KernelDef("dequeue_up_to", DeviceType::kCpu).Create<DequeueUpToKernel>());

}  // namespace tfg
