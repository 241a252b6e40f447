// Conversions between host values and host tensors: nested lists are tensor
// literals, a fetched tensor element reads back as a number. Implicit
// conversions follow TensorFlow's convert_to_tensor: ints may become floats,
// never the other way round; bools and strings stay what they are.
#pragma once

#include <optional>

#include "interp/language/value.h"

namespace tfg {

// True for values that can become a tensor: bools, numbers, strings, ranges,
// host tensors and (nested) lists of them.
bool IsHostData(const Value& v);

// The dtype a host value becomes without a hint: int -> i32 (i64 when some
// value does not fit), float -> f32, bool, string; a list unifies its
// elements (any float makes it f32); a host tensor keeps its dtype; an empty
// list is f32.
Result<DType> DefaultDType(const Value& v);

// Converts host data to a tensor of `dtype` (nullopt: DefaultDType).
// Errors name the value and both dtypes ("cannot convert the float 0.5 to
// i32"), or the shapes of a ragged list.
Result<Tensor> ToTensor(const Value& v, std::optional<DType> dtype = std::nullopt);

// Implicit conversion of a host tensor (int -> float, widening or narrowing
// within a kind when the values fit); float -> int and bool <-> number are
// errors.
Result<Tensor> ConvertTensor(const Tensor& t, DType to);

// Element i (row-major) as a host value: floats -> float, ints -> int, bool,
// string.
Value TensorElement(const Tensor& t, int64_t i);

// A scalar tensor, or any one-element tensor, as a host value; error
// otherwise.
Result<Value> TensorToScalar(const Tensor& t);

// Row i of the first dimension (a deep copy), for `for row in tensor`.
Tensor TensorRow(const Tensor& t, int64_t i);

// Zeros (false, "") of the given dtype and shape: what run() returns in
// check-only mode.
Result<Tensor> ZerosTensor(DType dtype, const TensorShape& shape);

// A host int that must fit an i32 / an int from any host value that holds
// one (int, bool excluded, integral one-element int tensors).
std::optional<int64_t> AsHostInt(const Value& v);

}  // namespace tfg
