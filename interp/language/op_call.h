// Calling a registry op from a script: binding the call's arguments to the
// op's parameters (inputs and attrs in declaration order, then keywords),
// converting host values to attrs and to input tensors, and choosing between
// eager evaluation (every input a host value, op not stateful) and building
// a node. Evaluator::CallOp (defined in op_call_exec.cc) puts these together.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "interp/language/builtin_context.h"
#include "interp/language/value.h"

namespace tfg {

// A call bound to an op, before its inputs are converted.
struct BoundOpCall {
  const OpDef* op = nullptr;
  std::vector<std::optional<Value>> inputs;  // per OpDef::inputs
  // per OpDef::variables; a bound variable also sets its name attrs and type attr
  std::vector<std::shared_ptr<VariableInfo>> variables;
  AttrMap attrs;                             // attrs the caller gave, converted
  std::optional<std::string> name;           // name=
};

// Binds positional arguments to OpDef::params in order, then keywords by
// name. `name=` names the node; `dtype=` names an inferred type attr when
// the op has no attr called dtype. Errors (too many arguments, unknown or
// repeated keywords, missing inputs) name the op and the parameter.
Result<BoundOpCall> BindOpCall(const OpDef& op, const CallArgs& args, const SourceSpan& span);

// Converts a host value to the attr's type: ints, floats (ints accepted),
// bools, strings, dtypes, shapes ([?, 784]; an int n means [n]), int and
// float lists (a single number is a one-element list, nested lists are
// flattened), dtype/shape/string lists, tensors. `none` leaves the attr
// unset (an unknown shape for shape attrs).
Result<AttrValue> ConvertAttr(const OpDef& op, const AttrDef& attr, const Value& v);

// Where the dtype of an input's host values comes from.
struct InputDType {
  std::optional<DType> dtype;  // nullopt: each value's default
  std::string source;          // "input 'x'", "dtype=", ... for messages
};

// For each input, the dtype its host values convert to: the fixed dtype of
// the argument, else the type attr's value given by the caller, else the
// dtype of another input sharing the type attr (a graph tensor first, then a
// host tensor), else a dtype all the host values sharing it agree on.
Result<std::vector<InputDType>> ResolveInputDTypes(const BoundOpCall& call);

// How an op's results come back: none outputs -> an op, one plain output ->
// that tensor, else a list.
bool ReturnsList(const OpDef& op);

}  // namespace tfg
