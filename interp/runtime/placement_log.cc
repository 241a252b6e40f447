#include "interp/runtime/placement_log.h"

#include <algorithm>
#include <fmt/format.h>

namespace tfg {

std::string FormatPlacement(std::vector<std::pair<const Node*, std::string>> placed) {
  std::sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) { return a.first->id() < b.first->id(); });
  std::string out;
  for (const auto& [node, device] : placed) {
    out += fmt::format("placement: {} ({}) on {} at {}\n", node->name(), node->op_name(), device,
                       node->span().ToString());
  }
  return out;
}

}  // namespace tfg
