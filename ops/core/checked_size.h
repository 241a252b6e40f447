// Checked arithmetic for sizes: element counts, byte sizes, shape products,
// begin + size, pads and window extents. Every size a user or a peer can
// choose goes through these before it is used to allocate or to loop, so an
// int64 overflow is an InvalidArgument naming the op and the numbers, never
// a wrapped count (TensorFlow's rule: dims >= 0 and their product fits in
// int64). One more cap: rank <= kMaxRank, the checkpoint format's limit,
// applied to every tensor so anything that runs can also be saved.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ops/core/dtype.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"

namespace tfg::checked {

inline constexpr int kMaxRank = 64;

// nullopt when the exact result does not fit in int64.
std::optional<int64_t> Mul(int64_t a, int64_t b);
std::optional<int64_t> Add(int64_t a, int64_t b);
std::optional<int64_t> Sub(int64_t a, int64_t b);

// The same, as errors: "<op>: <what> <a> * <b> overflows int64".
Result<int64_t> MulSize(std::string_view op, std::string_view what, int64_t a, int64_t b);
Result<int64_t> AddSize(std::string_view op, std::string_view what, int64_t a, int64_t b);

// The product of `dims`, every dim >= 0. A zero dim does not hide an
// overflow of the others ([0, 2**62, 4] is refused): kernels compute row
// strides from the other dims, and those must fit too.
Result<int64_t> NumElements(std::string_view op, const std::vector<int64_t>& dims);
// elements * the size of one element of `dtype`.
Result<int64_t> ByteSize(std::string_view op, int64_t elements, DType dtype);

// Everything a tensor's shape must satisfy: rank <= kMaxRank, dims >= 0,
// element count and byte size (for `dtype`) fit in int64.
Status CheckTensorShape(std::string_view op, const TensorShape& shape, DType dtype);
// What graph building can check of a PartialShape: rank <= kMaxRank, dims
// >= 0 or unknown (-1), and the product of the known dims fits in int64.
Status CheckPartialShape(std::string_view op, const PartialShape& shape);

// A rank taken from a number (a shape vector's length, an attr): 0 to
// kMaxRank, else "<op>: <what> <n> is not a rank from 0 to 64".
Result<int> Rank(std::string_view op, std::string_view what, int64_t n);

// The product of dims as TensorShape::num_elements reports it: exact when
// it fits, else INT64_MAX (which no allocation satisfies), so a stray call on
// an unchecked shape is never undefined behaviour.
int64_t SaturatedProduct(const std::vector<int64_t>& dims);

}  // namespace tfg::checked
