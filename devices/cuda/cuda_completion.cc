#include "devices/cuda/cuda_completion.h"

#include "devices/cuda/cuda_device.h"

namespace tfg {

CudaCompletionThread::CudaCompletionThread(int device_ordinal)
    : device_ordinal_(device_ordinal), thread_([this] { Loop(); }) {}

CudaCompletionThread::~CudaCompletionThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_one();
  thread_.join();
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
}

void CudaCompletionThread::Enqueue(cudaStream_t stream, std::function<void(Status)> fn) {
  cudaEvent_t event = TakeEvent();
  if (event == nullptr) {
    fn(Internal("CUDA: could not create an event to wait for GPU work"));
    return;
  }
  cudaError_t recorded = cudaEventRecord(event, stream);
  if (recorded != cudaSuccess) {
    ReturnEvent(event);
    fn(CudaError(recorded, "cudaEventRecord"));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back({event, std::move(fn)});
  }
  cv_.notify_one();
}

void CudaCompletionThread::Loop() {
  cudaSetDevice(device_ordinal_);
  for (;;) {
    Pending next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, nothing left
      next = std::move(pending_.front());
      pending_.pop_front();
    }
    Status status = Wait(next.event);
    ReturnEvent(next.event);
    next.fn(std::move(status));
  }
}

Status CudaCompletionThread::Wait(cudaEvent_t event) {
  TFG_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(event));
  return Status::OK();
}

// Events are reused: creating one per kernel would cost a driver call each.
cudaEvent_t CudaCompletionThread::TakeEvent() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_events_.empty()) {
      cudaEvent_t e = free_events_.back();
      free_events_.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  // Blocking sync: the completion thread sleeps while it waits.
  if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventBlockingSync) != cudaSuccess) return nullptr;
  return e;
}

void CudaCompletionThread::ReturnEvent(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(mu_);
  free_events_.push_back(event);
}

}  // namespace tfg
