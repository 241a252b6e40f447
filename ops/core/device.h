// Devices: where kernels run. The CPU device is built always; the CUDA
// device and remote devices implement the same interface.
//
// Required of every device: a name, a type, an allocator for its memory.
// Optional: ParallelFor (default: runs inline), Sync (default: nothing to
// wait for), eigen_cpu_device (CPU only).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ops/core/allocator.h"
#include "ops/core/device_type.h"
#include "ops/core/status.h"

namespace Eigen {
struct ThreadPoolDevice;
}

namespace tfg {

class Device {
 public:
  Device(std::string name, DeviceType type) : name_(std::move(name)), type_(type) {}
  virtual ~Device() = default;

  // Full name: "/job:localhost/task:0/device:cpu:0".
  const std::string& name() const { return name_; }
  DeviceType type() const { return type_; }
  // Owned by the device; outlives every tensor it allocated.
  virtual Allocator* allocator() = 0;
  // Intra-op parallelism: fn(begin, end) over [0, total).
  virtual void ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) {
    (void)cost_per_unit;
    if (total > 0) fn(0, total);
  }
  // Eigen's device for Eigen-tensor kernels; null for non-CPU devices.
  virtual const Eigen::ThreadPoolDevice* eigen_cpu_device() const { return nullptr; }
  // Waits for all work queued on the device (GPU streams).
  virtual Status Sync() { return Status::OK(); }

 private:
  std::string name_;
  DeviceType type_;
};

}  // namespace tfg
