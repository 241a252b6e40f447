// Attribute values of ops: compile-time parameters of a node (axis, dtype,
// shape, transpose flags, a constant's value). Attrs are validated when the
// node is built, so kernels read them without further checks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ops/core/dtype.h"
#include "ops/core/shape.h"
#include "ops/core/tensor.h"

namespace tfg {

enum class AttrType {
  kInt,         // int64_t
  kFloat,       // double
  kBool,        // bool
  kString,      // std::string
  kType,        // DType
  kShape,       // PartialShape ([?, 784] allowed)
  kIntList,     // std::vector<int64_t>
  kFloatList,   // std::vector<double>
  kTypeList,    // std::vector<DType>
  kShapeList,   // std::vector<PartialShape>
  kStringList,  // std::vector<std::string>
  kTensor,      // Tensor (constant values)
};
std::string_view AttrTypeName(AttrType t);  // "int", "float", "shape", ...

// std::monostate is `none` (an optional attr left unset, e.g. axis=none).
using AttrValue = std::variant<std::monostate, int64_t, double, bool, std::string, DType, PartialShape,
                               std::vector<int64_t>, std::vector<double>, std::vector<DType>,
                               std::vector<PartialShape>, std::vector<std::string>, Tensor>;

// Sorted by name, so equal attr sets compare and hash the same (CSE).
using AttrMap = std::map<std::string, AttrValue>;

// True when `v` holds the C++ alternative that `t` names (or none).
bool AttrHasType(const AttrValue& v, AttrType t);
// For error messages and `tfg graph`: "3", "[1, 2]", "f32", "[?, 784]".
std::string AttrValueToString(const AttrValue& v);
// Structural equality (tensors by value).
bool AttrValuesEqual(const AttrValue& a, const AttrValue& b);

// Typed lookup for kernels and shape functions. Returns nullptr when absent
// or none.
template <typename T>
const T* FindAttr(const AttrMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return nullptr;
  return std::get_if<T>(&it->second);
}

}  // namespace tfg
