// The host value of a packed number list literal (ast::NumberList).
#pragma once

#include "interp/language/ast.h"
#include "interp/language/value.h"

namespace tfg {

// A new list, as evaluating the ordinary list literal of the same text would
// make: ints as ints, floats as floats, nested lists as lists.
Value NumberListValue(const ast::NumberList& list);

}  // namespace tfg
