// close(handle, cancel_pending_enqueues): refuses further enqueues.
#include "ops/core/op_registry.h"
#include "ops/queue/queue_op_util.h"

namespace tfg {
namespace {

class CloseKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const auto* cancel = c.attr<bool>("cancel_pending_enqueues");
    if (!cancel) return Internal("close: missing attribute cancel_pending_enqueues");
    cancel_pending_ = *cancel;
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<QueueInterface> q, LookupQueue(ctx, ctx.input(0)));
    q->Close(cancel_pending_);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  bool cancel_pending_ = false;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("close")
                    .Input("handle", "string")
                    .Attr("cancel_pending_enqueues", AttrType::kBool, false,
                          "fail the enqueues already waiting (Aborted) instead of letting them finish")
                    .Stateful()
                    .SetShapeFn(shape_fns::NoOutputs)
                    .NoGradient("closing a queue has no value to differentiate")
                    .Doc("Closes the queue: later enqueues fail with Aborted; dequeues hand out what is left "
                         "and then fail with OutOfRange (catch it with try { } except OutOfRange { })."));
TFG_REGISTER_KERNEL(KernelDef("close", DeviceType::kCpu).Create<CloseKernel>());

}  // namespace tfg
