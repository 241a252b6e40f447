// The CPU device: host memory from HostAllocator() and an intra-op thread
// pool that kernels reach through ParallelFor and eigen_cpu_device().
#pragma once

#include <memory>

#include "ops/core/device.h"

namespace tfg {

class CpuDevice final : public Device {
 public:
  static constexpr const char* kName = "/job:localhost/task:0/device:cpu:0";

  // `intra_op_threads` <= 0: one thread per hardware core.
  explicit CpuDevice(int intra_op_threads);
  ~CpuDevice() override;

  Allocator* allocator() override { return HostAllocator(); }
  // Splits [0, total) into blocks when the work (total * cost_per_unit
  // cycles) is worth it; the calling thread runs blocks too, so it never
  // idles while pool threads are busy elsewhere. Calls from inside the
  // intra-op pool (a nested ParallelFor) run inline.
  void ParallelFor(int64_t total, int64_t cost_per_unit,
                   const std::function<void(int64_t, int64_t)>& fn) override;
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const override;

  int num_threads() const { return num_threads_; }

 private:
  struct Pool;
  int num_threads_;
  std::unique_ptr<Pool> pool_;
};

// Work below this many cycles stays on the calling thread.
inline constexpr int64_t kParallelForMinCycles = 10000;

}  // namespace tfg
