#include "devices/cuda/cuda_device.h"

#include "devices/cuda/cuda_completion.h"

namespace tfg {

Status CudaError(cudaError_t error, const char* call) {
  Code code = error == cudaErrorMemoryAllocation ? Code::kResourceExhausted : Code::kInternal;
  return Error(code, "CUDA error in {}: {} ({})", call, cudaGetErrorString(error), cudaGetErrorName(error));
}

namespace {

class DeviceMemory final : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  void Free(void* ptr, size_t) override { cudaFree(ptr); }
};

class PinnedHostMemory final : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    void* p = nullptr;
    return cudaHostAlloc(&p, bytes, cudaHostAllocPortable) == cudaSuccess ? p : nullptr;
  }
  void Free(void* ptr, size_t) override { cudaFreeHost(ptr); }
};

// Device memory tfg may take: most of what is free when it starts (the
// rest is left to cuBLAS workspaces and other processes).
constexpr double kDeviceMemoryFraction = 0.9;
// Pinned memory only stages copies; more would take page-locked memory
// from the rest of the machine.
constexpr size_t kPinnedMemoryLimit = size_t{2} << 30;

std::string DeviceName(int ordinal) { return "/job:localhost/task:0/device:gpu:" + std::to_string(ordinal); }

}  // namespace

CudaDevice::CudaDevice(int ordinal, std::string name) : Device(std::move(name), DeviceType::kGpu), ordinal_(ordinal) {}

Result<std::unique_ptr<CudaDevice>> CudaDevice::Create(int ordinal) {
  std::unique_ptr<CudaDevice> device(new CudaDevice(ordinal, DeviceName(ordinal)));
  TFG_RETURN_IF_ERROR(device->Init());
  return device;
}

Status CudaDevice::Init() {
  TFG_RETURN_IF_ERROR(Activate());
  for (cudaStream_t* s : {&compute_, &host_to_device_, &device_to_host_}) {
    TFG_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking));
  }
  size_t free_bytes = 0, total_bytes = 0;
  TFG_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  BfcAllocator::Options device_options;
  device_options.memory_limit = static_cast<size_t>(static_cast<double>(free_bytes) * kDeviceMemoryFraction);
  device_options.initial_region = size_t{64} << 20;
  device_memory_ = std::make_unique<BfcAllocator>(name() + " memory", std::make_unique<DeviceMemory>(),
                                                  device_options);
  BfcAllocator::Options pinned_options;
  pinned_options.memory_limit = kPinnedMemoryLimit;
  pinned_options.initial_region = size_t{4} << 20;
  pinned_memory_ = std::make_unique<BfcAllocator>(name() + " pinned host memory",
                                                  std::make_unique<PinnedHostMemory>(), pinned_options);
  completion_ = std::make_unique<CudaCompletionThread>(ordinal_);
  return Status::OK();
}

CudaDevice::~CudaDevice() {
  (void)Activate();
  (void)Sync();
  completion_.reset();  // runs what is still queued before the streams go
  if (cublas_ != nullptr) cublas_api_->destroy(cublas_);
  for (cudaStream_t s : {compute_, host_to_device_, device_to_host_}) {
    if (s != nullptr) cudaStreamDestroy(s);
  }
  // The allocators give their regions back (cudaFree, cudaFreeHost) as
  // they are destroyed, after the streams have finished with them.
}

Result<CudaDevice::Cublas> CudaDevice::cublas() {
  if (cublas_ == nullptr) {
    TFG_ASSIGN_OR_RETURN(const CublasApi* api, LoadCublas());
    TFG_RETURN_IF_ERROR(Activate());  // the handle belongs to the current device
    cublasHandle_t handle = nullptr;
    cublasStatus_t st = api->create(&handle);
    if (st != CUBLAS_STATUS_SUCCESS) return CublasError(st, "cublasCreate");
    st = api->set_stream(handle, compute_);
    if (st != CUBLAS_STATUS_SUCCESS) {
      api->destroy(handle);
      return CublasError(st, "cublasSetStream");
    }
    cublas_api_ = api;
    cublas_ = handle;
  }
  return Cublas{cublas_api_, cublas_};
}

Status CudaDevice::Activate() const {
  TFG_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  return Status::OK();
}

Status CudaDevice::Sync() {
  TFG_RETURN_IF_ERROR(Activate());
  for (cudaStream_t s : {compute_, host_to_device_, device_to_host_}) {
    if (s != nullptr) TFG_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(s));
  }
  return Status::OK();
}

void CudaDevice::ThenExecute(cudaStream_t stream, std::function<void(Status)> fn) {
  Status active = Activate();
  if (!active.ok()) {
    fn(std::move(active));
    return;
  }
  completion_->Enqueue(stream, std::move(fn));
}

Status CudaDevice::StreamWaitsFor(cudaStream_t waiter, cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  TFG_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  cudaError_t recorded = cudaEventRecord(event, stream);
  cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(waiter, event, 0) : recorded;
  // Destroying an event that is still pending is allowed: CUDA releases
  // it once it completes.
  cudaEventDestroy(event);
  TFG_CUDA_RETURN_IF_ERROR(waited);
  return Status::OK();
}

Result<CudaDevice*> AsCudaDevice(Device* device) {
  auto* cuda = dynamic_cast<CudaDevice*>(device);
  if (cuda == nullptr) {
    return Internal("a GPU kernel was placed on '{}', which is not a CUDA device",
                    device == nullptr ? std::string("no device") : device->name());
  }
  return cuda;
}

}  // namespace tfg
