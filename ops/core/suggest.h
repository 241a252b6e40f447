// "Did you mean ...?" for unknown names: the op registry's unknown ops and
// the language's unknown names and module members rank candidates the same
// way, so that one typo gets the same suggestion wherever it is made.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tfg {

// Levenshtein distance: the fewest single-character insertions, deletions
// and substitutions that turn `a` into `b`.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidates close enough to `name` to be a likely typo of it (within
// a third of its length, at least 1), nearest first, ties in the order of
// `candidates`; at most `n`.
std::vector<std::string> ClosestNames(std::string_view name, const std::vector<std::string>& candidates, size_t n);

// The nearest of ClosestNames, or "" when none is close enough.
std::string ClosestName(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tfg
