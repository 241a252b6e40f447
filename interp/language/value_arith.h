// Python semantics for operators on host scalars (none, bool, int, float,
// string): computed at once, no graph involved. Ints are 64-bit; overflow is
// an error rather than a silent wrap.
#pragma once

#include "interp/language/ast.h"
#include "interp/language/value.h"

namespace tfg {

// none, bool, int, float or string.
bool IsHostScalar(const Value& v);

// + - * / % ** and comparisons. `/` always gives a float, `%` and the sign
// of its result follow the divisor (floor modulo), int ** negative int is a
// float; bools count as 0 and 1; strings concatenate (+), repeat (* int) and
// compare. Errors name the operator and both operand kinds.
Result<Value> HostBinary(ast::BinaryOp op, const Value& a, const Value& b);

// -x, +x, not x.
Result<Value> HostUnary(ast::UnaryOp op, const Value& x);

// Python ==: numbers compare across int/float/bool, lists and dicts deeply,
// graph objects by identity, values of different kinds are unequal.
bool HostEquals(const Value& a, const Value& b);

}  // namespace tfg
