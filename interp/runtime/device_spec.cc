#include "interp/runtime/device_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "ops/core/device_type.h"

namespace tfg {

namespace {

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::optional<int64_t> ParseIndex(const std::string& s) {
  int64_t v = 0;
  auto res = std::from_chars(s.data(), s.data() + s.size(), v);
  if (res.ec != std::errc() || res.ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Status BadDevice(const std::string& text, const std::string& why) {
  return InvalidArgument(
      "bad device name \"{}\": {}; expected e.g. \"/job:worker/task:1/device:cpu:0\" (every part optional)", text,
      why);
}

// "TYPE:ID" or "TYPE:*" or "TYPE".
Status ParseDeviceField(const std::string& text, const std::string& field, DeviceSpec& spec) {
  std::vector<std::string> parts = SplitOn(field, ':');
  if (parts.size() > 2) return BadDevice(text, "'" + field + "' has too many ':'");
  std::string type = Lower(parts[0]);
  if (!DeviceTypeFromName(type)) return BadDevice(text, "unknown device type '" + parts[0] + "'");
  spec.type = type;
  spec.id.reset();
  if (parts.size() == 2 && parts[1] != "*") {
    spec.id = ParseIndex(parts[1]);
    if (!spec.id) return BadDevice(text, "device index '" + parts[1] + "' is not a number");
  }
  return Status::OK();
}

Status ParseField(const std::string& text, const std::string& field, DeviceSpec& spec) {
  size_t colon = field.find(':');
  if (colon == std::string::npos) return BadDevice(text, "'" + field + "' is not of the form key:value");
  std::string key = Lower(field.substr(0, colon));
  std::string value = field.substr(colon + 1);
  if (key == "job") {
    if (value.empty()) return BadDevice(text, "empty job name");
    spec.job = value;
  } else if (key == "replica" || key == "task") {
    auto n = ParseIndex(value);
    if (!n) return BadDevice(text, key + " '" + value + "' is not a number");
    (key == "task" ? spec.task : spec.replica) = n;
  } else if (key == "device") {
    return ParseDeviceField(text, value, spec);
  } else if (DeviceTypeFromName(key)) {
    return ParseDeviceField(text, field, spec);  // legacy "/cpu:0"
  } else {
    return BadDevice(text, "unknown field '" + key + "'");
  }
  return Status::OK();
}

}  // namespace

Result<DeviceSpec> DeviceSpec::Parse(const std::string& text) {
  DeviceSpec spec;
  if (text.empty()) return spec;
  std::vector<std::string> fields = SplitOn(text, '/');
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].empty()) {
      if (i == 0) continue;  // leading '/'
      return BadDevice(text, "empty part");
    }
    TFG_RETURN_IF_ERROR(ParseField(text, fields[i], spec));
  }
  return spec;
}

void DeviceSpec::MergeFrom(const DeviceSpec& inner) {
  if (!inner.job.empty()) job = inner.job;
  if (inner.replica) replica = inner.replica;
  if (inner.task) task = inner.task;
  if (!inner.type.empty()) {
    type = inner.type;
    id = inner.id;
  }
}

std::string DeviceSpec::ToString() const {
  std::string out;
  if (!job.empty()) out += "/job:" + job;
  if (replica) out += "/replica:" + std::to_string(*replica);
  if (task) out += "/task:" + std::to_string(*task);
  if (!type.empty()) out += "/device:" + type + ":" + (id ? std::to_string(*id) : std::string("*"));
  return out;
}

}  // namespace tfg
