// The values op_fuzz builds an op call from, decoded from the fuzz input:
// ints, floats, strings, dtypes and shapes, drawn mostly from tables of
// extreme values (0, -1, 2**31, 2**63-1, INT64_MIN, NaN, inf, huge lists...)
// so that a few mutated bytes reach every overflow boundary. Bytes are read
// from the front; past the end every read is 0, which decodes to an
// ordinary value (ints 1, shapes [1, 1]), so a short input is still a
// well-formed call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/dtype.h"
#include "ops/core/shape.h"
#include "ops/core/tensor.h"

namespace tfg::fuzz {

// Input tensors stay this small: only their shapes (through zero dims),
// the attrs and the values in index inputs are extreme.
inline constexpr int64_t kMaxInputElements = 256;

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16();
  uint64_t Raw64();  // 8 bytes, little-endian (where the dictionary's entries land)
  bool Bit() { return (Byte() & 1) != 0; }

  int64_t Int();        // an int attr, an index or a count
  double Float();       // a float attr or element
  std::string String(); // a string attr or element
  DType AnyDType();
  DType DTypeFrom(const DTypeSet& allowed);  // empty: any
  int Rank();           // 0..5 mostly, then 6..1000
  size_t ListLength();  // 0..6 mostly, then 64..100000
  // A dim of a shape attr: ordinary, extreme, unknown (-1) or invalid (-2).
  int64_t AttrDim();
  // A shape a graph could hold (rank <= 64, dims >= -1, product fits).
  PartialShape GraphShape();
  // An attr of `type`, sometimes (1 in 32) of the wrong type.
  AttrValue Attr(AttrType type, const DTypeSet& allowed);
  // A tensor of `dtype` with at most kMaxInputElements elements; its dims
  // may be extreme when a zero dim keeps it empty.
  Tensor SmallTensor(DType dtype);

 private:
  int64_t TensorDim();
  TensorShape SmallShape(DType dtype);
  void FillValues(Tensor& t);

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace tfg::fuzz
