// IDX files, the format of MNIST and Fashion-MNIST: two zero bytes, a type
// byte (0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64), the
// number of dimensions, each dimension as a big-endian u32, then the
// elements big-endian in row-major order. Usually shipped gzipped.
//
// The header is checked against the data actually there before anything
// is allocated, so a corrupt or hostile file gets an error, never a huge
// allocation or a read past the end.
#pragma once

#include <string>
#include <string_view>

#include "interp/data/byte_source.h"
#include "ops/core/tensor.h"

namespace tfg::data {

// Reads one IDX file from `src`. Integer elements (u8, i8, i16, i32) become
// an i32 tensor; f32 and f64 stay as they are. Errors (DataLoss or
// InvalidArgument) name the source and say what the header promised and
// what was found.
Result<Tensor> ReadIdx(ByteSource& src);

// The file at `path`, gzipped (detected by its 1f 8b magic) or not.
Result<Tensor> ReadIdxFile(const std::string& path);

// IDX bytes already in memory (not gzipped); `name` is used in messages.
Result<Tensor> DecodeIdx(std::string_view bytes, const std::string& name);

}  // namespace tfg::data
