#include "ops/core/suggest.h"

#include <algorithm>
#include <utility>

namespace tfg {

size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table, updated in place.
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> ClosestNames(std::string_view name, const std::vector<std::string>& candidates, size_t n) {
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::vector<std::pair<size_t, size_t>> near;  // (distance, index in candidates)
  for (size_t i = 0; i < candidates.size(); ++i) {
    size_t d = EditDistance(name, candidates[i]);
    if (d <= limit) near.emplace_back(d, i);
  }
  std::sort(near.begin(), near.end());
  std::vector<std::string> out;
  for (size_t k = 0; k < near.size() && k < n; ++k) out.push_back(candidates[near[k].second]);
  return out;
}

std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates) {
  std::vector<std::string> best = ClosestNames(name, candidates, 1);
  return best.empty() ? "" : best[0];
}

}  // namespace tfg
