// padding_fifo_queue(capacity, dtypes, shapes, shared_name, container): a
// FIFO queue whose batches pad `?` dimensions.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_kinds.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class PaddingFifoQueueKernel : public queue::MakeQueueKernel {
 protected:
  std::string kind() const override { return "padding_fifo_queue"; }
  std::shared_ptr<QueueBase> Make(const OpKernelContext&, QueueConfig config) const override {
    return std::make_shared<PaddingFifoQueue>(std::move(config));
  }
};

Status PaddingShapeFn(ShapeContext& c) {
  const auto* types = c.attr<std::vector<DType>>("dtypes");
  const auto* shapes = c.attr<std::vector<PartialShape>>("shapes");
  if (types && shapes && shapes->size() != types->size()) {
    return InvalidArgument("needs one shape per dtype (use ? for the dimensions that vary), got {} for {}",
                           shapes->size(), types->size());
  }
  if (shapes) {
    for (size_t i = 0; i < shapes->size(); ++i) {
      if (!(*shapes)[i].known_rank()) {
        return InvalidArgument("the shape of component {} must have a known rank (e.g. [?, 3])", i);
      }
    }
  }
  return queue::MakeQueueShapeFn(c);
}

}  // namespace

TFG_REGISTER_OP(queue::QueueMakerOp(OpDefBuilder("padding_fifo_queue")
                    .Attr("capacity", AttrType::kInt, std::nullopt, "most elements held at once")
                    .Attr("dtypes", AttrType::kTypeList, std::nullopt, "dtype of each component")
                    .Attr("shapes", AttrType::kShapeList, std::nullopt,
                          "shape of each component, of known rank; ? marks dimensions that vary"),
                                        PaddingShapeFn)
                    .Doc("A first-in first-out queue whose elements may differ in the dimensions shapes marks "
                         "?; dequeue_many and dequeue_up_to pad each such dimension with zeros (empty strings) "
                         "to the largest element of the batch. Outputs the queue's handle."));
TFG_REGISTER_KERNEL(KernelDef("padding_fifo_queue", DeviceType::kCpu).Create<PaddingFifoQueueKernel>());

}  // namespace tfg
