#include "ops/core/dtype.h"

#include <string>

namespace tfg {

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF16: return 2;
    case DType::kF32: return 4;
    case DType::kF64: return 8;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kBool: return 1;
    case DType::kString: return sizeof(std::string);
    case DType::kInvalid: return 0;
  }
  return 0;
}

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF16: return "f16";
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kBool: return "bool";
    case DType::kString: return "string";
    case DType::kInvalid: return "invalid";
  }
  return "invalid";
}

std::optional<DType> DTypeFromName(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (DTypeName(d) == name) return d;
  }
  return std::nullopt;
}

const DTypeSet& FloatTypes() {
  static const DTypeSet s = {DType::kF16, DType::kF32, DType::kF64};
  return s;
}
const DTypeSet& NumberTypes() {
  static const DTypeSet s = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64};
  return s;
}
const DTypeSet& RealTypes() {
  static const DTypeSet s = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};
  return s;
}
const DTypeSet& AllTypes() {
  static const DTypeSet s(std::begin(kAllDTypes), std::end(kAllDTypes));
  return s;
}

std::string DTypeSetToString(const DTypeSet& set) {
  std::string out = "{";
  for (size_t i = 0; i < set.size(); ++i) {
    if (i) out += ", ";
    out += DTypeName(set[i]);
  }
  return out + "}";
}

}  // namespace tfg
