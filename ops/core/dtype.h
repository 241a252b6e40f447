// Element types of tensors. f16 is for storage and transfer; arithmetic
// kernels on f16 compute in f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfg {

enum class DType : uint8_t { kInvalid = 0, kF16, kF32, kF64, kI32, kI64, kBool, kString };

inline constexpr DType kAllDTypes[] = {DType::kF16, DType::kF32, DType::kF64, DType::kI32,
                                       DType::kI64, DType::kBool, DType::kString};

// Bytes per element; sizeof(std::string) for strings (their buffers own
// constructed std::string objects).
size_t DTypeSize(DType dtype);
// "f32", "i64", "bool", ... as scripts write them.
std::string_view DTypeName(DType dtype);
std::optional<DType> DTypeFromName(std::string_view name);

inline bool IsFloat(DType d) { return d == DType::kF16 || d == DType::kF32 || d == DType::kF64; }
inline bool IsInteger(DType d) { return d == DType::kI32 || d == DType::kI64; }
inline bool IsNumeric(DType d) { return IsFloat(d) || IsInteger(d); }

// Sets of dtypes used in op signatures.
using DTypeSet = std::vector<DType>;
const DTypeSet& FloatTypes();    // f16 f32 f64
const DTypeSet& NumberTypes();   // f16 f32 f64 i32 i64
const DTypeSet& RealTypes();     // number types + bool (comparisons, select, ...)
const DTypeSet& AllTypes();      // every dtype incl. string
std::string DTypeSetToString(const DTypeSet& set);  // "{f32, f64}"

}  // namespace tfg
