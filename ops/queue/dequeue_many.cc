// dequeue_many(handle, n): takes n elements at once, stacked along a new
// dimension 0.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class DequeueManyKernel : public queue::DequeueBatchKernel {
 public:
  DequeueManyKernel() : DequeueBatchKernel(false) {}
};

Status DequeueManyShapeFn(ShapeContext& c) {
  const auto* n = c.attr<int64_t>("n");
  if (n && *n < 1) return InvalidArgument("n must be at least 1, got {}", *n);
  return queue::DequeueShapes(c, n ? *n : PartialShape::kUnknown);
}

}  // namespace

TFG_REGISTER_OP(queue::DequeueBatchOpDef("dequeue_many", "elements per batch")
                    .SetShapeFn(DequeueManyShapeFn)
                    .Doc("Takes n elements at once, each component stacked along a new dimension 0 (padded in a "
                         "padding_fifo_queue). Waits until n are there; fails with OutOfRange when the queue is "
                         "closed with fewer than n left."));
TFG_REGISTER_KERNEL(KernelDef("dequeue_many", DeviceType::kCpu).Create<DequeueManyKernel>());

}  // namespace tfg
