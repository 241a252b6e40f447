// NumPy .npy files (format versions 1.0, 2.0 and 3.0), read and written.
//
// Element types read: '<f2' '<f4' '<f8' as f16 f32 f64; '<i4' '<i8' as
// i32 i64; '|b1' as bool; the narrower integers '|i1' '|u1' '<i2' '<u2' as
// i32; '<u4' as i64, and '<u8' as i64 when every value fits. Big-endian
// ('>') files are byte-swapped; Fortran-order arrays are transposed into
// row-major order. Strings ('S' bytes, 'U' unicode) become string tensors
// (interp/data/npy_strings.h). Objects, complex numbers, dates and
// structured arrays are Unimplemented ("not supported yet").
//
// The header's length and shape are checked against the data actually in
// the file before anything is allocated.
#pragma once

#include <string>
#include <string_view>

#include "interp/data/byte_source.h"
#include "ops/core/tensor.h"

namespace tfg::data {

Result<Tensor> ReadNpy(ByteSource& src);
// The file at `path` (a gzipped .npy is read too).
Result<Tensor> ReadNpyFile(const std::string& path);
// .npy bytes in memory; `name` is used in messages.
Result<Tensor> DecodeNpy(std::string_view bytes, const std::string& name);

// `t` as a .npy file, byte for byte what NumPy's np.save writes for the
// same array (format 1.0, little-endian, C order). String tensors are
// written as '<U' (or '|S' when a string is not UTF-8).
Result<std::string> EncodeNpy(const Tensor& t);
// Writes EncodeNpy(t) to `path` atomically (temporary file, then rename).
Status WriteNpyFile(const std::string& path, const Tensor& t);

}  // namespace tfg::data
