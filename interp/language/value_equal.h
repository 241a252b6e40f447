// Deep equality of host values with a stack of its own rather than
// recursion, so two lists nested 150,000 deep compare as surely as flat
// ones (no depth limit, so no silent "false" past one).
#pragma once

#include <functional>

#include "interp/language/value.h"

namespace tfg {

// How a pair that is not two containers compares.
using LeafEqual = std::function<Result<bool>(const Value& a, const Value& b)>;

// Whether `a` equals `b`: pairs of lists (and of dicts, when `dicts`) are
// compared item by item (dicts by key), every other pair by `leaf`. A pair
// of containers met again while inside them compares equal (two lists that
// hold themselves repeat the same way from there). The first error of
// `leaf` is the result.
Result<bool> PairwiseEqual(const Value& a, const Value& b, bool dicts, const LeafEqual& leaf);

}  // namespace tfg
