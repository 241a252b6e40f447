// String arrays in .npy files. NumPy stores them at a fixed width per
// element: 'S<n>' (also 'a<n>') as n bytes, '<U<n>' / '>U<n>' as n UCS-4
// code points, both padded with zeros at the end. tfg's strings are bytes:
// 'S' elements are read as they are and 'U' elements as UTF-8, the
// trailing zero padding dropped (as NumPy drops it). Writing picks '<U'
// when every string is valid UTF-8 (np.load then gives str, as
// np.array(["a", "bc"]) would hold) and '|S' otherwise, the width being
// the longest string's (at least 1, as NumPy's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::data {

// The layout of one string element, parsed from a descr like '<U7'.
struct NpyStringType {
  bool unicode = false;  // 'U': UCS-4 code points; else bytes
  bool big_endian = false;
  size_t width = 0;      // characters per element
  size_t bytes() const { return unicode ? 4 * width : width; }
};

// Whether `descr` is a string dtype; `type` is set when it is. Errors
// (DataLoss) for a malformed width, Unimplemented for a zero width.
Result<bool> ParseNpyStringDescr(const std::string& descr, const std::string& file, NpyStringType& type);

// A string tensor of `dims` from the raw element bytes (row-major).
// Invalid code points are a DataLoss error naming the element.
Result<Tensor> DecodeNpyStrings(const unsigned char* raw, const NpyStringType& type, const std::vector<int64_t>& dims,
                                const std::string& file);

// The descr and element bytes of a string tensor.
struct EncodedNpyStrings {
  std::string descr;
  std::string data;
};
EncodedNpyStrings EncodeNpyStrings(const Tensor& t);

// Reorders the elements (each `elem_bytes` wide) of a Fortran-order
// (column-major) array of shape `dims` into row-major order.
std::vector<unsigned char> FortranToRowMajor(const unsigned char* raw, size_t elem_bytes,
                                             const std::vector<int64_t>& dims);

}  // namespace tfg::data
