#include "interp/runtime/device_set.h"

#include <fmt/format.h>

#include "devices/cuda/cuda_devices.h"

namespace tfg {

std::string LocalDeviceName(const std::string& type, int index) {
  return fmt::format("/job:{}/replica:0/task:0/device:{}:{}", kLocalJob, type, index);
}

void DeviceSet::Add(Device* device) {
  auto spec = DeviceSpec::Parse(device->name());
  DeviceSpec s = spec.ok() ? *spec : DeviceSpec();
  // A device name leaves nothing open: missing parts are this process's.
  if (s.job.empty()) s.job = kLocalJob;
  if (!s.replica) s.replica = 0;
  if (!s.task) s.task = 0;
  if (s.type.empty()) s.type = std::string(DeviceTypeName(device->type()));
  if (!s.id) s.id = 0;
  devices_.push_back(device);
  specs_.push_back(std::move(s));
}

void DeviceSet::AddOwned(std::unique_ptr<Device> device) {
  Add(device.get());
  owned_.push_back(std::move(device));
}

// This process's devices by type and index; a cluster task's in full, as
// one is told from another only by its job and task.
std::string DeviceSet::ShortNames() const {
  std::string out;
  for (const DeviceSpec& s : specs_) {
    if (!out.empty()) out += ", ";
    if (s.job != kLocalJob) out += fmt::format("/job:{}/task:{}/device:", s.job, *s.task);
    out += fmt::format("{}:{}", s.type, *s.id);
  }
  return out;
}

bool SpecMatches(const DeviceSpec& request, const DeviceSpec& d) {
  if (!request.job.empty() && request.job != d.job) return false;
  if (request.replica && request.replica != d.replica) return false;
  if (request.task && request.task != d.task) return false;
  if (!request.type.empty() && request.type != d.type) return false;
  if (!request.type.empty() && request.id && request.id != d.id) return false;
  return true;
}

Result<std::vector<int>> DeviceSet::Matching(const DeviceSpec& request) const {
  std::vector<int> out;
  bool type_present = false;
  for (int i = 0; i < size(); ++i) {
    type_present = type_present || request.type.empty() || specs_[i].type == request.type;
    if (SpecMatches(request, specs_[i])) out.push_back(i);
  }
  if (!out.empty()) return out;
  if (request.type == "gpu" && !type_present) {
    std::string why = CudaUnavailableReason();
    if (why.empty()) why = "no GPU could be set up; see the warnings above";
    return Error(Code::kUnavailable, "no CUDA device available for {} ({}; devices: {})", request.ToString(), why,
                 ShortNames());
  }
  // --local-devices makes more of this process's devices only.
  const bool local = request.job.empty() || request.job == kLocalJob;
  return InvalidArgument("no device matches {} (devices: {}{})", request.ToString(), ShortNames(),
                         local ? "; --local-devices cpu=N makes more" : "");
}

}  // namespace tfg
