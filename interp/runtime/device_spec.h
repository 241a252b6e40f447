// Device names as scripts and placement write them, whole or in part:
// `with device("/job:ps/task:0")`, a node's requested device, and the
// devices a session has. Parsed once here for the language (scopes) and the
// runtime (placement) alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ops/core/status.h"

namespace tfg {

// A (possibly partial) device name: /job:worker/replica:0/task:1/device:cpu:0.
// Unset fields are left for the placer.
struct DeviceSpec {
  std::string job;                  // "" when unset
  std::optional<int64_t> replica;
  std::optional<int64_t> task;
  std::string type;                 // "cpu", "gpu"; "" when unset
  std::optional<int64_t> id;        // nullopt with a type: any device of it ("*")

  // Accepts "/job:J/replica:R/task:T/device:TYPE:ID" with any fields left
  // out, the short "/cpu:0", and "" (nothing set).
  static Result<DeviceSpec> Parse(const std::string& text);
  // Fields set in `inner` override ours (nested `with device`).
  void MergeFrom(const DeviceSpec& inner);
  // Canonical form, "" when nothing is set.
  std::string ToString() const;
  bool empty() const { return job.empty() && !replica && !task && type.empty(); }
};

}  // namespace tfg
