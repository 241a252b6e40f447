// The attributes `x.name` reads on a value (shape, dtype, ... for tensors;
// members for modules), for dir(), help() and tab completion.
#pragma once

#include <string>
#include <vector>

#include "interp/language/value.h"

namespace tfg {

// Sorted; a module's names starting with '_' (its private ones) left out.
std::vector<std::string> AttributeNames(const Value& v);

}  // namespace tfg
