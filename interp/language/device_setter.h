// TensorFlow's replica_device_setter (white paper §7, OSDI §4.1): inside
// `with device(setter)`, each new variable goes to one of the parameter-
// server devices and every other node to the worker device. The setter
// keeps its state across blocks, so variables built in several blocks are
// still spread over all the ps devices.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "interp/language/scopes.h"
#include "ops/core/status.h"

namespace tfg {

class ReplicaDeviceSetter {
 public:
  enum class Strategy {
    kRoundRobin,  // the next ps device in turn (TF's default)
    kGreedy,      // the ps device holding the fewest bytes so far (GreedyLoadBalancingStrategy)
  };

  static Result<Strategy> ParseStrategy(const std::string& name);
  // Parses every device name; at least one ps device.
  static Result<std::shared_ptr<ReplicaDeviceSetter>> Make(const std::vector<std::string>& ps_devices,
                                                           const std::string& worker_device, Strategy strategy);

  // The ps device for a new variable of `bytes` bytes; counts it there.
  const DeviceSpec& PlaceVariable(int64_t bytes);
  const DeviceSpec& worker() const { return worker_; }
  // "ps [/device:cpu:1, /device:cpu:2] round_robin, worker /device:cpu:0"
  std::string Describe() const;

 private:
  std::vector<DeviceSpec> ps_;
  std::vector<int64_t> bytes_on_;  // per ps device
  DeviceSpec worker_;
  Strategy strategy_ = Strategy::kRoundRobin;
  size_t next_ = 0;
};

}  // namespace tfg
