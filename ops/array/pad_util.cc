#include "ops/array/pad_util.h"

#include <algorithm>
#include <cctype>

#include "ops/array/array_util.h"
#include "ops/core/checked_size.h"

namespace tfg::array {

Result<PadMode> ParsePadMode(const std::string& op, std::string mode) {
  std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::toupper(c); });
  if (mode == "CONSTANT") return PadMode::kConstant;
  if (mode == "REFLECT") return PadMode::kReflect;
  if (mode == "SYMMETRIC") return PadMode::kSymmetric;
  return InvalidArgument("{}: mode must be \"CONSTANT\", \"REFLECT\" or \"SYMMETRIC\", got \"{}\"", op, mode);
}

Result<std::vector<int64_t>> PaddedDims(const std::string& op, const PartialShape& in,
                                        const std::vector<int64_t>& pads, PadMode mode) {
  if (static_cast<int>(pads.size()) != 2 * in.rank()) {
    return InvalidArgument("{}: paddings {} must have 2 entries (before, after) per dimension of the input {}", op,
                           IntListToString(pads), in.ToString());
  }
  std::vector<int64_t> out(in.rank());
  for (int i = 0; i < in.rank(); ++i) {
    const int64_t before = pads[2 * i], after = pads[2 * i + 1], dim = in.dim(i);
    if (before < 0 || after < 0) return InvalidArgument("{}: paddings {} must be >= 0", op, IntListToString(pads));
    const int64_t limit = mode == PadMode::kReflect ? dim - 1 : dim;
    if (mode != PadMode::kConstant && dim >= 0 && (before > limit || after > limit)) {
      return InvalidArgument("{}: {} padding of dimension {} (size {}) can be at most {}, got [{}, {}]", op,
                             mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC", i, dim, limit, before, after);
    }
    if (dim < 0) {
      out[i] = PartialShape::kUnknown;
      continue;
    }
    TFG_ASSIGN_OR_RETURN(int64_t padded, checked::AddSize(op, "padded size", before, dim));
    TFG_ASSIGN_OR_RETURN(out[i], checked::AddSize(op, "padded size", padded, after));
  }
  return out;
}

std::vector<int64_t> PadIndexMap(int64_t before, int64_t dim, int64_t out_dim, PadMode mode) {
  std::vector<int64_t> map(out_dim);
  for (int64_t j = 0; j < out_dim; ++j) {
    int64_t i = j - before;
    if (i < 0 || i >= dim) {
      if (mode == PadMode::kConstant) i = -1;
      else if (mode == PadMode::kReflect) i = i < 0 ? -i : 2 * (dim - 1) - i;
      else i = i < 0 ? -i - 1 : 2 * dim - 1 - i;
    }
    map[j] = i;
  }
  return map;
}

}  // namespace tfg::array
