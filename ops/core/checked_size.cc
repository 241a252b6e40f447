#include "ops/core/checked_size.h"

#include <limits>

namespace tfg::checked {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The product of the non-zero `dims` (all >= 0), or 0 when one is zero;
// `shape_text()` is how the error names the shape (built only on error:
// this runs for every tensor allocated).
template <typename ShapeText>
Result<int64_t> ProductOfDims(std::string_view op, const ShapeText& shape_text, const std::vector<int64_t>& dims) {
  int64_t product = 1;
  bool has_zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      has_zero = true;
      continue;
    }
    int64_t next = 0;
    if (__builtin_mul_overflow(product, d, &next)) {
      return InvalidArgument("{}: shape {} is too large: its element count {} * {} overflows int64 (at most {})", op,
                             shape_text(), product, d, kMax);
    }
    product = next;
  }
  return has_zero ? 0 : product;
}

}  // namespace

std::optional<int64_t> Mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> Add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> Sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

Result<int64_t> MulSize(std::string_view op, std::string_view what, int64_t a, int64_t b) {
  if (auto r = Mul(a, b)) return *r;
  return InvalidArgument("{}: {} {} * {} overflows int64 (at most {})", op, what, a, b, kMax);
}

Result<int64_t> AddSize(std::string_view op, std::string_view what, int64_t a, int64_t b) {
  if (auto r = Add(a, b)) return *r;
  return InvalidArgument("{}: {} {} + {} overflows int64 (at most {})", op, what, a, b, kMax);
}

Result<int64_t> NumElements(std::string_view op, const std::vector<int64_t>& dims) {
  auto shape_text = [&dims] { return TensorShape(dims).ToString(); };
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("{}: shape {} has a negative dimension", op, shape_text());
  }
  return ProductOfDims(op, shape_text, dims);
}

Result<int64_t> ByteSize(std::string_view op, int64_t elements, DType dtype) {
  const auto element_size = static_cast<int64_t>(DTypeSize(dtype));
  if (auto bytes = Mul(elements, element_size)) return *bytes;
  return InvalidArgument("{}: {} elements of {} ({} bytes each) overflow int64 bytes", op, elements,
                         DTypeName(dtype), element_size);
}

Status CheckTensorShape(std::string_view op, const TensorShape& shape, DType dtype) {
  if (shape.rank() > kMaxRank) {
    return InvalidArgument("{}: rank {} is above the limit of {} dimensions", op, shape.rank(), kMaxRank);
  }
  TFG_ASSIGN_OR_RETURN(int64_t elements, NumElements(op, shape.dims()));
  return ByteSize(op, elements, dtype).status();
}

Status CheckPartialShape(std::string_view op, const PartialShape& shape) {
  if (!shape.known_rank()) return Status::OK();
  if (shape.rank() > kMaxRank) {
    return InvalidArgument("{}: rank {} is above the limit of {} dimensions", op, shape.rank(), kMaxRank);
  }
  std::vector<int64_t> known;
  for (int64_t d : shape.dims()) {
    if (d < PartialShape::kUnknown) {
      return InvalidArgument("{}: shape {} has a negative dimension {}", op, shape.ToString(), d);
    }
    if (d >= 0) known.push_back(d);
  }
  return ProductOfDims(op, [&shape] { return shape.ToString(); }, known).status();
}

Result<int> Rank(std::string_view op, std::string_view what, int64_t n) {
  if (n < 0 || n > kMaxRank) {
    return InvalidArgument("{}: {} {} is not a rank from 0 to {} dimensions", op, what, n, kMaxRank);
  }
  return static_cast<int>(n);
}

int64_t SaturatedProduct(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d == 0) return 0;
    auto next = Mul(product, d);
    if (!next) overflow = true;
    else product = *next;
  }
  return overflow ? kMax : product;
}

}  // namespace tfg::checked
