#include "interp/language/scopes.h"

#include <cctype>

#include <fmt/format.h>

#include "interp/language/device_setter.h"

namespace tfg {

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
  if (!name.empty() && name.back() == '/') {
    s.name_prefix = name;
  } else if (!name.empty()) {
    s.name_prefix += name + "/";
  }
  states_.push_back(std::move(s));
}

namespace {

// Whether a node is named `full` or sits in the scope `full`.
bool ScopeInGraph(const Graph& graph, const std::string& full) {
  if (graph.FindNode(full)) return true;
  const std::string prefix = full + "/";
  for (const auto& node : graph.nodes()) {
    if (node->name().compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

}  // namespace

std::string ScopeStack::UniqueScope(const Graph& graph, const std::string& base) {
  const std::string& prefix = current().name_prefix;
  std::string name = base;
  for (int n = 1; reserved_scopes_.count(prefix + name) || ScopeInGraph(graph, prefix + name); ++n) {
    name = base + "_" + std::to_string(n);
  }
  reserved_scopes_.insert(prefix + name);
  return name;
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
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '/') {
      // A part between two '/' (or before the first, after the last) is empty.
      if (i == 0 || i + 1 == name.size() || name[i + 1] == '/') {
        return InvalidArgument("bad {} \"{}\": empty part between '/'", what, Printable(name));
      }
    } else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') {
      return InvalidArgument("bad {} \"{}\": '{}' is not allowed (use letters, digits, _ . -)", what,
                             Printable(name), Printable(std::string(1, c)));
    }
  }
  return Status::OK();
}

}  // namespace

Status CheckScopeName(const std::string& name) {
  // An absolute scope ends in '/'; the rest follows the node name rules.
  if (name.size() > 1 && name.back() == '/') return CheckName(name.substr(0, name.size() - 1), "scope name");
  return CheckName(name, "scope name");
}
Status CheckNodeName(const std::string& name) { return CheckName(name, "node name"); }

}  // namespace tfg
