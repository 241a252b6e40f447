// NumPy .npz archives (np.savez, np.savez_compressed): a zip file holding
// one .npy file per array, named "<key>.npy". Entries stored (method 0) or
// deflated (method 8, through zlib) are read; each entry's CRC-32 and sizes
// are checked, and its size is checked against the bytes there (and, for
// deflate, zlib's largest ratio) before anything is allocated. Zip64
// archives (over 4 GiB), encryption and other methods are Unimplemented.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::data {

using NamedArrays = std::vector<std::pair<std::string, Tensor>>;

// The arrays of an archive in memory, in archive order, keyed by entry
// name without ".npy". `name` is used in messages.
Result<NamedArrays> DecodeNpz(std::string_view bytes, const std::string& name);
Result<NamedArrays> ReadNpzFile(const std::string& path);

// An archive of `arrays` (keys non-empty and unique) that np.load reads;
// `compressed`: deflate each entry (np.savez_compressed) or store it
// (np.savez).
Result<std::string> EncodeNpz(const NamedArrays& arrays, bool compressed);
// Writes EncodeNpz atomically (temporary file, then rename).
Status WriteNpzFile(const std::string& path, const NamedArrays& arrays, bool compressed);

}  // namespace tfg::data
