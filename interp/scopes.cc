#include "interp/scopes.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "devices/device_type.h"
#include "interp/device_setter.h"

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

std::string ScopeStack::device() const {
  const State& s = current();
  if (s.colocate_with.empty()) return s.device.ToString();
  // A setter's worker device is a default: colocated nodes (an optimizer's
  // slots, a gradient's mean on its variable's device) go with their
  // anchor instead. Explicit devices still apply and may contradict it.
  DeviceSpec spec = s.device;
  if (s.setter) {
    spec = s.outside_setter;
    spec.MergeFrom(s.inside_setter);
  }
  DeviceSpec merged = s.colocate_device;
  merged.MergeFrom(spec);
  return merged.ToString() + "@" + s.colocate_with;
}

void ScopeStack::PushColocate(const std::string& node_name, const DeviceSpec& node_device) {
  State s = current();
  s.colocate_with = node_name;
  s.colocate_device = node_device;
  states_.push_back(std::move(s));
}

void ScopeStack::PushDevice(const DeviceSpec& spec, bool clear) {
  State s = current();
  if (clear) s.device = DeviceSpec();
  s.device.MergeFrom(spec);
  if (s.setter) s.inside_setter.MergeFrom(spec);
  states_.push_back(std::move(s));
}

void ScopeStack::PushDeviceSetter(std::shared_ptr<ReplicaDeviceSetter> setter) {
  State s = current();
  s.outside_setter = s.device;
  s.inside_setter = DeviceSpec();
  s.device.MergeFrom(setter->worker());
  s.setter = std::move(setter);
  states_.push_back(std::move(s));
}

std::string ScopeStack::VariableDevice(int64_t bytes) {
  State& s = states_.back();
  if (!s.setter || !s.colocate_with.empty()) return device();
  DeviceSpec spec = s.outside_setter;
  spec.MergeFrom(s.setter->PlaceVariable(bytes));
  spec.MergeFrom(s.inside_setter);
  return spec.ToString();
}

void ScopeStack::PushScope(const std::string& name) {
  State s = current();
  if (!name.empty()) s.name_prefix += name + "/";
  states_.push_back(std::move(s));
}

void ScopeStack::PushDeps(const std::vector<Node*>& nodes) {
  State s = current();
  for (Node* n : nodes) {
    if (std::find(s.control_deps.begin(), s.control_deps.end(), n) == s.control_deps.end()) {
      s.control_deps.push_back(n);
    }
  }
  states_.push_back(std::move(s));
}

void ScopeStack::PushContainer(const std::string& name) {
  State s = current();
  s.container = name;
  states_.push_back(std::move(s));
}

void ScopeStack::Pop() {
  if (states_.size() > 1) states_.pop_back();
}

namespace {

// Printable as it is; other bytes (a newline) as \xNN, so the error stays
// on its line.
std::string Printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isprint(static_cast<unsigned char>(c))) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

// `what` names the kind of name in the error: "scope name", "node name".
Status CheckName(const std::string& name, const char* what) {
  if (name.empty()) return Status::OK();
  for (const std::string& part : SplitOn(name, '/')) {
    if (part.empty()) return InvalidArgument("bad {} \"{}\": empty part between '/'", what, Printable(name));
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
        return InvalidArgument("bad {} \"{}\": '{}' is not allowed (use letters, digits, _ . -)", what,
                               Printable(name), Printable(std::string(1, c)));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckScopeName(const std::string& name) { return CheckName(name, "scope name"); }
Status CheckNodeName(const std::string& name) { return CheckName(name, "node name"); }

}  // namespace tfg
