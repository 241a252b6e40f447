#include "interp/language/device_setter.h"

#include <fmt/format.h>

namespace tfg {

Result<ReplicaDeviceSetter::Strategy> ReplicaDeviceSetter::ParseStrategy(const std::string& name) {
  if (name == "round_robin") return Strategy::kRoundRobin;
  if (name == "greedy") return Strategy::kGreedy;
  return InvalidArgument("unknown strategy \"{}\"; expected \"round_robin\" or \"greedy\"", name);
}

Result<std::shared_ptr<ReplicaDeviceSetter>> ReplicaDeviceSetter::Make(const std::vector<std::string>& ps_devices,
                                                                      const std::string& worker_device,
                                                                      Strategy strategy) {
  if (ps_devices.empty()) return InvalidArgument("needs at least one parameter-server device");
  auto setter = std::make_shared<ReplicaDeviceSetter>();
  for (const std::string& name : ps_devices) {
    TFG_ASSIGN_OR_RETURN(DeviceSpec spec, DeviceSpec::Parse(name));
    setter->ps_.push_back(std::move(spec));
  }
  TFG_ASSIGN_OR_RETURN(setter->worker_, DeviceSpec::Parse(worker_device));
  setter->bytes_on_.assign(setter->ps_.size(), 0);
  setter->strategy_ = strategy;
  return setter;
}

const DeviceSpec& ReplicaDeviceSetter::PlaceVariable(int64_t bytes) {
  size_t pick = 0;
  if (strategy_ == Strategy::kRoundRobin) {
    pick = next_;
    next_ = (next_ + 1) % ps_.size();
  } else {
    // Ties go to the lower index, as TensorFlow's greedy strategy does.
    for (size_t i = 1; i < ps_.size(); ++i) {
      if (bytes_on_[i] < bytes_on_[pick]) pick = i;
    }
  }
  bytes_on_[pick] += bytes;
  return ps_[pick];
}

std::string ReplicaDeviceSetter::Describe() const {
  std::string ps;
  for (const DeviceSpec& d : ps_) ps += (ps.empty() ? "" : ", ") + d.ToString();
  return fmt::format("ps [{}] {}, worker {}", ps, strategy_ == Strategy::kRoundRobin ? "round_robin" : "greedy",
                     worker_.ToString().empty() ? "\"\"" : worker_.ToString());
}

}  // namespace tfg
