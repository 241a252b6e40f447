// The devices one session can place nodes on: the CPU, or logical CPU
// devices (`--local-devices cpu=N`) that share the session's CPU device
// (its memory and intra-op thread pool) under their own names, then one
// device per GPU (devices/cuda/cuda_devices.h), if there are any.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ops/core/device.h"
#include "interp/runtime/device_spec.h"

namespace tfg {

// A named view of another CPU device: kernels placed on it run with the
// shared device's allocator and thread pool.
class LocalCpuDevice final : public Device {
 public:
  LocalCpuDevice(std::string name, Device* shared) : Device(std::move(name), DeviceType::kCpu), shared_(shared) {}
  Allocator* allocator() override { return shared_->allocator(); }
  void ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) override {
    shared_->ParallelFor(total, cost_per_unit, fn);
  }
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const override { return shared_->eigen_cpu_device(); }

 private:
  Device* shared_;
};

// The job of this process's own devices (a cluster's tasks have theirs).
inline constexpr const char* kLocalJob = "localhost";

// "/job:localhost/replica:0/task:0/device:cpu:N".
std::string LocalDeviceName(const std::string& type, int index);

class DeviceSet {
 public:
  // `device` is not owned; it must outlive the set. The first device added
  // is the default one (where unconstrained nodes go when there is a
  // single device, and where eager ops run).
  void Add(Device* device);
  // Owns `device` and adds it.
  void AddOwned(std::unique_ptr<Device> device);

  int size() const { return static_cast<int>(devices_.size()); }
  Device* device(int i) const { return devices_[i]; }
  const DeviceSpec& spec(int i) const { return specs_[i]; }
  const std::vector<Device*>& devices() const { return devices_; }
  // "cpu:0, cpu:1, /job:ps/task:0/device:cpu:0": the short names, for
  // messages.
  std::string ShortNames() const;

  // The indices of the devices a (possibly partial) request allows; an
  // error when none does: "no CUDA device available" for a gpu request,
  // else "no device matches ...", naming the devices there are.
  Result<std::vector<int>> Matching(const DeviceSpec& request) const;

 private:
  std::vector<Device*> devices_;
  std::vector<DeviceSpec> specs_;  // each device's full name, parsed
  std::vector<std::unique_ptr<Device>> owned_;
};

// Whether device `d`'s full spec satisfies the (partial) request.
bool SpecMatches(const DeviceSpec& request, const DeviceSpec& d);

}  // namespace tfg
