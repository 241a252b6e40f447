#include "ops/core/device_type.h"

namespace tfg {

std::string_view DeviceTypeName(DeviceType t) { return t == DeviceType::kCpu ? "cpu" : "gpu"; }

std::optional<DeviceType> DeviceTypeFromName(std::string_view name) {
  if (name == "cpu" || name == "CPU") return DeviceType::kCpu;
  if (name == "gpu" || name == "GPU" || name == "cuda") return DeviceType::kGpu;
  return std::nullopt;
}

}  // namespace tfg
