// The thread that turns finished GPU work into `done` calls: callers queue
// (event recorded on a stream, callback); the thread waits for each event
// in turn (blocking sync, so it sleeps rather than spins) and calls its
// callback. Callbacks run on this thread and may queue GPU work, which a
// cudaLaunchHostFunc callback may not.
#pragma once

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "ops/core/status.h"

namespace tfg {

class CudaCompletionThread {
 public:
  explicit CudaCompletionThread(int device_ordinal);
  // Runs the callbacks still queued (after their events) and stops.
  ~CudaCompletionThread();

  // Records an event on `stream` and queues fn behind it; fn gets the
  // error of the stream (or of recording the event) if there was one.
  void Enqueue(cudaStream_t stream, std::function<void(Status)> fn);

 private:
  struct Pending {
    cudaEvent_t event;
    std::function<void(Status)> fn;
  };
  void Loop();
  Status Wait(cudaEvent_t event);
  cudaEvent_t TakeEvent();
  void ReturnEvent(cudaEvent_t event);

  const int device_ordinal_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> pending_;
  std::vector<cudaEvent_t> free_events_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tfg
