// _recv(): the tensor the _send of the same tensor_name on send_device
// hands over, dead when it was dead. Asynchronous: while it waits it holds
// no thread, and a cancelled step aborts the rendezvous, which ends the
// wait on every device of the run. What arrives is host memory; on a
// device with memory of its own (a GPU) it is copied there before the
// kernel is done.
#include "devices/device_copy.h"
#include "ops/core/cancellation.h"
#include "ops/core/op_registry.h"
#include "ops/core/rendezvous.h"

namespace tfg {
namespace {

class RecvKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const auto* name = c.attr<std::string>("tensor_name");
    const auto* src = c.attr<std::string>("send_device");
    const auto* dst = c.attr<std::string>("recv_device");
    if (!name || !src || !dst) return Internal("_recv: missing attributes");
    if (const auto* shape = c.attr<PartialShape>("shape")) shape_ = *shape;
    key_.tensor_name = *name;
    key_.src_device = *src;
    key_.dst_device = *dst;
    return Status::OK();
  }
  Status Compute(OpKernelContext&) override { return Internal("_recv runs asynchronously"); }
  bool IsAsync() const override { return true; }
  bool IsExpensive() const override { return false; }
  std::string BlockedOn(const OpKernelContext&) const override {
    return "a transfer of '" + key_.tensor_name + "' from " + key_.src_device;
  }

  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    auto found = LookupStepRendezvous(ctx.resources(), ctx.step().step_id);
    if (!found.ok()) return done(found.status());
    std::shared_ptr<Rendezvous> r = (*found)->rendezvous;
    RendezvousKey key = key_;
    key.step_id = (*found)->run_id;
    CancellationManager* cm = ctx.step().cancellation;
    CancellationManager::Token token = 0;
    if (cm != nullptr) {
      // A failing device cancels its step; aborting the rendezvous passes
      // that on to the waits of every other device.
      token = cm->Register([r] { r->StartAbort(Error(Code::kCancelled, "the run was cancelled")); });
      if (token == CancellationManager::kAlreadyCancelled) return done(Error(Code::kCancelled, "the run was cancelled"));
    }
    r->RecvAsync(key, [this, &ctx, cm, token, done = std::move(done)](Status s, Tensor value, bool is_dead) {
      if (cm != nullptr) cm->Deregister(token);
      // A tensor from another process is checked like a feed: kernels
      // downstream trust the static shape (the executor checks the dtype).
      if (s.ok() && !is_dead && !shape_.IsCompatibleWith(value.shape())) {
        s = InvalidArgument("received {} for '{}', whose shape is {}", value.DebugString(), key_.tensor_name,
                            shape_.ToString());
      }
      // A dead transfer leaves the output unset: the executor treats it as
      // a dead output (PlanNode::outputs_may_be_dead).
      if (!s.ok() || is_dead) return done(std::move(s));
      CopyFromHost(ctx.device(), value, [&ctx, done = std::move(done)](Result<Tensor> here) {
        if (here.ok()) ctx.set_output(0, std::move(*here));
        done(here.status());
      });
    });
  }

 private:
  RendezvousKey key_;
  PartialShape shape_;  // unknown rank unless the attr says
};

Status RecvShapeFn(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("_recv")
                    .Output("tensor", "tensor_type")
                    .TypeAttr("tensor_type", AllTypes())
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "the sent tensor's static shape")
                    .Attr("tensor_name", AttrType::kString, std::nullopt, "names the transfer: \"node:output\"")
                    .Attr("send_device", AttrType::kString, std::nullopt, "the full name of the sending device")
                    .Attr("recv_device", AttrType::kString, std::nullopt, "the full name of this device")
                    .Stateful()
                    .SetShapeFn(RecvShapeFn)
                    .NoGradient("built after gradients, when a placed graph is partitioned")
                    .Doc("Receives the tensor (live or dead) the _send of the same tensor_name on send_device "
                         "sends, waiting without holding a thread. Built when a graph placed on several devices is "
                         "split per device; not for scripts."));
TFG_REGISTER_KERNEL(KernelDef("_recv", DeviceType::kCpu).Create<RecvKernel>());
// Strings cannot live on a GPU.
TFG_REGISTER_KERNEL(KernelDef("_recv", DeviceType::kGpu).TypeConstraint(RealTypes(), "tensor_type").Create<RecvKernel>());

}  // namespace tfg
