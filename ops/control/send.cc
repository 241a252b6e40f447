// _send(tensor): hands a tensor to the _recv of the same tensor_name on
// recv_device through the step's rendezvous. Built only by partitioning a
// graph placed on several devices (interp/runtime/partition.h). It runs even when
// its input is dead (the plan gives it the control_trigger kind), so the
// receiving side learns of the deadness instead of waiting forever.
//
// What crosses a rendezvous is host memory: on a device with memory of its
// own (a GPU) the kernel is asynchronous and copies the tensor to the host
// first, after the kernels that produce it.
#include "devices/device_copy.h"
#include "ops/core/op_registry.h"
#include "ops/core/rendezvous.h"

namespace tfg {
namespace {

class SendKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const auto* name = c.attr<std::string>("tensor_name");
    const auto* src = c.attr<std::string>("send_device");
    const auto* dst = c.attr<std::string>("recv_device");
    if (!name || !src || !dst) return Internal("_send: missing attributes");
    key_.tensor_name = *name;
    key_.src_device = *src;
    key_.dst_device = *dst;
    copies_ = c.device != nullptr && !UsesHostMemory(*c.device);
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    return SendHostTensor(ctx, value, !value.IsInitialized());
  }
  bool IsAsync() const override { return copies_; }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    const Tensor& value = ctx.input(0);
    if (!copies_ || !value.IsInitialized()) return done(SendHostTensor(ctx, value, !value.IsInitialized()));
    CopyToHost(ctx.device(), value, [this, &ctx, done = std::move(done)](Result<Tensor> host) {
      done(host.ok() ? SendHostTensor(ctx, *host, false) : host.status());
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  Status SendHostTensor(OpKernelContext& ctx, const Tensor& value, bool is_dead) const {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<StepRendezvous> r, LookupStepRendezvous(ctx.resources(), ctx.step().step_id));
    RendezvousKey key = key_;
    key.step_id = r->run_id;
    return r->rendezvous->Send(key, value, is_dead);
  }

 private:
  RendezvousKey key_;
  bool copies_ = false;  // the tensor is in device memory
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("_send")
                    .Input("tensor", "T")
                    .TypeAttr("T", AllTypes())
                    .Attr("tensor_name", AttrType::kString, std::nullopt, "names the transfer: \"node:output\"")
                    .Attr("send_device", AttrType::kString, std::nullopt, "the full name of this device")
                    .Attr("recv_device", AttrType::kString, std::nullopt, "the full name of the receiving device")
                    .Stateful()
                    .SetShapeFn(shape_fns::NoOutputs)
                    .NoGradient("built after gradients, when a placed graph is partitioned")
                    .Doc("Sends a tensor (live or dead) to the _recv of the same tensor_name on recv_device. Built "
                         "when a graph placed on several devices is split per device; not for scripts."));
TFG_REGISTER_KERNEL(KernelDef("_send", DeviceType::kCpu).Create<SendKernel>());
// Strings cannot live on a GPU.
TFG_REGISTER_KERNEL(KernelDef("_send", DeviceType::kGpu).TypeConstraint(RealTypes(), "T").Create<SendKernel>());

}  // namespace tfg
