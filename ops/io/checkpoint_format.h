// The checkpoint file format (docs/checkpoints.md describes it byte by
// byte): a header (magic, version), one checksummed record per tensor (name,
// dtype, shape, data), and a footer (record count, checksum of everything
// before it, end marker) so that truncation and trailing bytes are caught.
//
// Encoding and decoding work on bytes in memory, apart from any file, so
// the reader can be fuzzed and tested on corrupted buffers directly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::checkpoint {

inline constexpr char kMagic[8] = {'T', 'F', 'G', 'C', 'K', 'P', 'T', '\n'};
inline constexpr char kEndMagic[8] = {'T', 'F', 'G', 'C', 'K', 'E', 'N', 'D'};
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 12;  // magic, version
inline constexpr size_t kFooterBytes = 20;  // count, file checksum, end magic

// Limits a reader enforces before trusting a length it read.
inline constexpr uint32_t kMaxNameBytes = 1 << 16;
inline constexpr uint32_t kMaxRank = 64;

// The element count of `shape`, or a DataLoss error (prefixed `where`)
// when a dimension product passes 2**62 or the elements cannot fit in
// `data_len` bytes at `min_bytes` each: checked before allocating. Shared
// by the readers of tfg's checkpoints and of TensorFlow's bundles.
Result<int64_t> CheckedElementCount(const TensorShape& shape, uint64_t data_len, size_t min_bytes,
                                    const std::string& where);

// One saved tensor.
struct Entry {
  std::string name;
  Tensor value;
};

// The bytes of a checkpoint holding `entries` in the given order. Error for
// an uninitialized tensor, an empty or over-long name, or a repeated name.
Result<std::string> Encode(const std::vector<Entry>& entries);

// Verifies a whole checkpoint (magic, version, every record's checksum and
// bounds, the footer's count and checksum) and returns its tensors, in file
// order. Nothing is allocated from a length that was not first checked
// against the bytes that are there. Errors are DataLoss (Unimplemented for
// a newer version) and say what is wrong, without the file's name.
Result<std::vector<Entry>> Decode(std::string_view bytes);

}  // namespace tfg::checkpoint
