// Host <-> GPU tensor copies, staged through pinned host memory: a copy
// from pageable memory would make the host wait for the transfer, and a
// copy from pinned memory does not.
#include <cstring>
#include <future>

#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_devices.h"

namespace tfg {

namespace {

using CopyDone = std::function<void(Result<Tensor>)>;

Status CheckCopyable(const Tensor& t) {
  if (!t.IsInitialized()) return InvalidArgument("cannot copy an uninitialized tensor to or from a GPU");
  if (t.dtype() == DType::kString) return InvalidArgument("string tensors cannot live on a GPU");
  return Status::OK();
}

Result<void*> TakeStaging(CudaDevice& dev, size_t bytes) {
  void* staging = dev.pinned_host_memory()->Allocate(bytes);
  if (staging == nullptr) {
    return Error(Code::kResourceExhausted, "out of pinned host memory for a {}-byte copy to or from {}", bytes,
                 dev.name());
  }
  return staging;
}

// Queues the copy of `host` into a new tensor on `dev`; returns that tensor.
Status QueueHostToDevice(CudaDevice& dev, const Tensor& host, const CopyDone& done) {
  TFG_RETURN_IF_ERROR(CheckCopyable(host));
  TFG_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dev.allocator(), host.dtype(), host.shape()));
  size_t bytes = host.bytes();
  if (bytes == 0) {
    done(std::move(out));
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(void* staging, TakeStaging(dev, bytes));
  std::memcpy(staging, host.raw_data(), bytes);
  TFG_RETURN_IF_ERROR(dev.Activate());
  // `out` may be memory a tensor freed once its last kernel was queued on
  // the compute stream, and that kernel may not have run yet: the copy
  // waits for the kernels queued so far.
  Status after_kernels = dev.StreamWaitsFor(dev.host_to_device_stream(), dev.compute_stream());
  cudaError_t queued = after_kernels.ok() ? cudaMemcpyAsync(out.raw_data(), staging, bytes, cudaMemcpyHostToDevice,
                                                            dev.host_to_device_stream())
                                          : cudaErrorUnknown;
  Status ordered = !after_kernels.ok()     ? after_kernels
                   : queued == cudaSuccess ? dev.StreamWaitsFor(dev.compute_stream(), dev.host_to_device_stream())
                                           : CudaError(queued, "cudaMemcpyAsync");
  if (!ordered.ok()) {
    // Nothing reads the staging buffer once the stream is done with it.
    (void)dev.Sync();
    dev.pinned_host_memory()->Deallocate(staging, bytes);
    return ordered;
  }
  dev.ThenExecute(dev.host_to_device_stream(), [&dev, staging, bytes, out, done](Status s) {
    dev.pinned_host_memory()->Deallocate(staging, bytes);
    if (s.ok()) {
      done(out);
    } else {
      done(std::move(s));
    }
  });
  return Status::OK();
}

Status QueueDeviceToHost(CudaDevice& dev, const Tensor& on_gpu, const CopyDone& done) {
  TFG_RETURN_IF_ERROR(CheckCopyable(on_gpu));
  size_t bytes = on_gpu.bytes();
  if (bytes == 0) {
    TFG_ASSIGN_OR_RETURN(Tensor empty, Tensor::Allocate(HostAllocator(), on_gpu.dtype(), on_gpu.shape()));
    done(std::move(empty));
    return Status::OK();
  }
  TFG_RETURN_IF_ERROR(dev.Activate());
  // After the kernels queued so far, which may still be writing the tensor.
  TFG_RETURN_IF_ERROR(dev.StreamWaitsFor(dev.device_to_host_stream(), dev.compute_stream()));
  TFG_ASSIGN_OR_RETURN(void* staging, TakeStaging(dev, bytes));
  cudaError_t queued = cudaMemcpyAsync(staging, on_gpu.raw_data(), bytes, cudaMemcpyDeviceToHost,
                                       dev.device_to_host_stream());
  if (queued != cudaSuccess) {
    (void)dev.Sync();
    dev.pinned_host_memory()->Deallocate(staging, bytes);
    return CudaError(queued, "cudaMemcpyAsync");
  }
  // `on_gpu` is captured so its memory is not reused before the copy ends.
  dev.ThenExecute(dev.device_to_host_stream(), [&dev, staging, bytes, on_gpu, done](Status s) {
    Result<Tensor> host = s.ok() ? Tensor::Allocate(HostAllocator(), on_gpu.dtype(), on_gpu.shape())
                                 : Result<Tensor>(std::move(s));
    if (host.ok()) std::memcpy(host->raw_data(), staging, bytes);
    dev.pinned_host_memory()->Deallocate(staging, bytes);
    done(std::move(host));
  });
  return Status::OK();
}

Result<Tensor> WaitFor(const std::function<void(CopyDone)>& start) {
  std::promise<Result<Tensor>> promise;
  std::future<Result<Tensor>> future = promise.get_future();
  start([&promise](Result<Tensor> r) { promise.set_value(std::move(r)); });
  return future.get();
}

}  // namespace

void CopyHostToCuda(Device* gpu, const Tensor& host, CopyDone done) {
  Result<CudaDevice*> dev = AsCudaDevice(gpu);
  Status queued = dev.ok() ? QueueHostToDevice(**dev, host, done) : dev.status();
  if (!queued.ok()) done(std::move(queued));
}

void CopyCudaToHost(Device* gpu, const Tensor& on_gpu, CopyDone done) {
  Result<CudaDevice*> dev = AsCudaDevice(gpu);
  Status queued = dev.ok() ? QueueDeviceToHost(**dev, on_gpu, done) : dev.status();
  if (!queued.ok()) done(std::move(queued));
}

Result<Tensor> CopyHostToCudaSync(Device* gpu, const Tensor& host) {
  return WaitFor([&](CopyDone done) { CopyHostToCuda(gpu, host, std::move(done)); });
}

Result<Tensor> CopyCudaToHostSync(Device* gpu, const Tensor& on_gpu) {
  return WaitFor([&](CopyDone done) { CopyCudaToHost(gpu, on_gpu, std::move(done)); });
}

}  // namespace tfg
