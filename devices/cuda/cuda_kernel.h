// The base of GPU kernels: a kernel queues its work on the device's
// compute stream in Enqueue and returns; the executor sees an asynchronous
// kernel whose `done` the device's completion thread calls when the work
// has finished (or failed). So GPU work never holds an executor pool
// thread, and the kernel's inputs and outputs stay alive until the GPU is
// done with them.
#pragma once

#include "devices/cuda/cuda_device.h"
#include "ops/core/kernel.h"

namespace tfg {

class CudaOpKernel : public OpKernel {
 public:
  bool IsAsync() const final { return true; }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) final {
    Result<CudaDevice*> dev = AsCudaDevice(ctx.device());
    Status queued = dev.ok() ? (*dev)->Activate() : dev.status();
    if (queued.ok()) queued = Enqueue(ctx, **dev);
    if (!queued.ok()) {
      done(std::move(queued));
      return;
    }
    (*dev)->ThenExecute((*dev)->compute_stream(), std::move(done));
  }
  // For callers that run kernels synchronously (eager evaluation, tests):
  // waits for the GPU on the calling thread.
  Status Compute(OpKernelContext& ctx) final {
    TFG_ASSIGN_OR_RETURN(CudaDevice * dev, AsCudaDevice(ctx.device()));
    TFG_RETURN_IF_ERROR(dev->Activate());
    TFG_RETURN_IF_ERROR(Enqueue(ctx, *dev));
    TFG_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(dev->compute_stream()));
    return Status::OK();
  }

 protected:
  // Checks the inputs, allocates the outputs (on the device) and queues
  // the work on dev.compute_stream(). Must not wait for the GPU.
  virtual Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const = 0;
};

}  // namespace tfg
