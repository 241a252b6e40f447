// One GPU as a tfg Device. Included only by files that use the CUDA
// toolkit (devices/cuda/cuda_*.cc, ops/**/*_cuda.cc); everything else uses
// devices/cuda/cuda_devices.h.
//
// Streams: kernels run in order on one compute stream, so a buffer freed
// by one kernel and handed to the next is never in use by both. Copies to
// and from host memory run on their own streams and are ordered against
// the compute stream with events: a copy to the GPU after the kernels
// queued before it (its destination may be memory one of them still
// reads), a copy to the host after the kernels that write its tensor; a
// copy overlaps the kernels queued after it that do not need it.
//
// Completion: the executor runs GPU kernels as asynchronous kernels (see
// cuda_kernel.h): a kernel queues its work and returns; the device's
// completion thread waits for the work and calls `done`, so no executor
// pool thread ever waits for the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "devices/cuda/bfc_allocator.h"
#include "devices/cuda/cuda_cublas.h"
#include "ops/core/device.h"
#include "ops/core/status.h"

namespace tfg {

class CudaCompletionThread;

// "CUDA error in cudaMalloc: out of memory (cudaErrorMemoryAllocation)".
Status CudaError(cudaError_t error, const char* call);

#define TFG_CUDA_RETURN_IF_ERROR(call)                              \
  do {                                                             \
    cudaError_t tfg_cuda_error_ = (call);                          \
    if (tfg_cuda_error_ != cudaSuccess) return ::tfg::CudaError(tfg_cuda_error_, #call); \
  } while (0)

class CudaDevice final : public Device {
 public:
  // Sets up GPU `ordinal`: streams, allocators, completion thread (cuBLAS
  // waits for its first use).
  static Result<std::unique_ptr<CudaDevice>> Create(int ordinal);
  ~CudaDevice() override;

  // Device memory, cached (BfcAllocator over cudaMalloc).
  Allocator* allocator() override { return device_memory_.get(); }
  // Waits for every stream of the device.
  Status Sync() override;

  int ordinal() const { return ordinal_; }
  cudaStream_t compute_stream() const { return compute_; }
  cudaStream_t host_to_device_stream() const { return host_to_device_; }
  cudaStream_t device_to_host_stream() const { return device_to_host_; }
  struct Cublas {
    const CublasApi* api;
    cublasHandle_t handle;  // bound to the compute stream
  };
  // Loads cuBLAS and makes the handle at the first call, so a process that
  // never needs it never loads it; an Unavailable error when cuBLAS cannot
  // be loaded (the device's other kernels still run). cuBLAS handles are
  // not thread-safe: callers hold cublas_mutex() from this call until
  // their cuBLAS call is queued.
  Result<Cublas> cublas();
  std::mutex& cublas_mutex() { return cublas_mu_; }
  // Page-locked host memory for staging copies (BfcAllocator over
  // cudaHostAlloc): copies from it run asynchronously, at full speed.
  BfcAllocator* pinned_host_memory() { return pinned_memory_.get(); }
  const BfcAllocator::Stats device_memory_stats() const { return device_memory_->GetStats(); }

  // Runs fn(status) on the completion thread once all work queued on
  // `stream` so far has finished; status is the stream's error, if any.
  // fn may queue more GPU work.
  void ThenExecute(cudaStream_t stream, std::function<void(Status)> fn);
  // Makes `waiter` wait (on the GPU, not the host) for the work queued on
  // `stream` so far.
  Status StreamWaitsFor(cudaStream_t waiter, cudaStream_t stream);
  // Makes the device current on the calling thread (CUDA keeps the current
  // device per thread, and pool threads serve every device).
  Status Activate() const;

 private:
  CudaDevice(int ordinal, std::string name);
  Status Init();

  int ordinal_;
  cudaStream_t compute_ = nullptr;
  cudaStream_t host_to_device_ = nullptr;
  cudaStream_t device_to_host_ = nullptr;
  const CublasApi* cublas_api_ = nullptr;
  cublasHandle_t cublas_ = nullptr;  // both set by the first cublas()
  std::mutex cublas_mu_;
  std::unique_ptr<BfcAllocator> device_memory_;
  std::unique_ptr<BfcAllocator> pinned_memory_;
  std::unique_ptr<CudaCompletionThread> completion_;
};

// The CudaDevice behind a kernel's device, or an Internal error when the
// kernel was placed elsewhere.
Result<CudaDevice*> AsCudaDevice(Device* device);

}  // namespace tfg
