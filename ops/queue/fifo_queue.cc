// fifo_queue(capacity, dtypes, shapes, shared_name, container): a
// first-in first-out queue of tuples of tensors; outputs its handle.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_kinds.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class FifoQueueKernel : public queue::MakeQueueKernel {
 protected:
  std::string kind() const override { return "fifo_queue"; }
  std::shared_ptr<QueueBase> Make(const OpKernelContext&, QueueConfig config) const override {
    return std::make_shared<FifoQueue>(std::move(config));
  }
};

}  // namespace

TFG_REGISTER_OP(queue::QueueMakerOp(OpDefBuilder("fifo_queue")
                    .Attr("capacity", AttrType::kInt, std::nullopt, "most elements held at once")
                    .Attr("dtypes", AttrType::kTypeList, std::nullopt, "dtype of each component")
                    .Attr("shapes", AttrType::kShapeList, std::vector<PartialShape>{},
                          "shape of each component; empty: any (then dequeue_many needs equal shapes)"))
                    .Doc("A first-in first-out queue of tuples of tensors (one tensor per dtype in dtypes). "
                         "Enqueues wait while it holds capacity elements; dequeues wait while it is empty. "
                         "Outputs the queue's handle for enqueue, dequeue, close and queue_size."));
TFG_REGISTER_KERNEL(KernelDef("fifo_queue", DeviceType::kCpu).Create<FifoQueueKernel>());

}  // namespace tfg
