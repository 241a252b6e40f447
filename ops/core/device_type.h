#pragma once

#include <optional>
#include <string_view>

namespace tfg {

enum class DeviceType { kCpu, kGpu };

// "cpu", "gpu" as written in device names (/device:gpu:0).
std::string_view DeviceTypeName(DeviceType t);
std::optional<DeviceType> DeviceTypeFromName(std::string_view name);

}  // namespace tfg
