// TensorFlow's V2 checkpoint format, the tensor bundle
// (tensorflow/core/util/tensor_bundle), in memory: an `.index` file that is
// a LevelDB table (ops/io/sstable.h) mapping "" to a BundleHeaderProto and
// each tensor's name to a BundleEntryProto (dtype, shape, shard, offset,
// size, masked CRC-32C of the bytes), and `.data-NNNNN-of-NNNNN` shards
// holding the tensors' bytes: numbers little-endian, bools one byte each,
// strings as varint64 lengths, the masked CRC-32C of those lengths, then
// the strings' bytes.
//
// Decoding works on bytes already read, apart from any file, so that the
// reader can be fuzzed and tested on corrupted buffers directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/status.h"
#include "ops/core/tensor.h"
#include "ops/io/checkpoint_format.h"

namespace tfg::tf_bundle {

// Limits a reader enforces before trusting a number it read.
inline constexpr int32_t kMaxShards = 1 << 16;
inline constexpr int kMaxRank = 64;

// One dimension of a saved slice (TensorSliceProto.Extent): elements
// [start, start + length); length -1: the whole dimension.
struct SliceExtent {
  int64_t start = 0;
  int64_t length = -1;
};
using TensorSlice = std::vector<SliceExtent>;

// Where one tensor is, as its BundleEntryProto says.
struct IndexEntry {
  std::string name;
  DType dtype = DType::kInvalid;
  TensorShape shape;
  int32_t shard = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t masked_crc = 0;
  // A partitioned variable (saved by a partitioner): the slices it was
  // saved as, each an entry of its own under a key made from the name and
  // the slice (ops/io/tf_bundle_slices.h); this entry holds no data.
  std::vector<TensorSlice> slices;
};

struct Index {
  int32_t num_shards = 1;
  std::vector<IndexEntry> entries;  // in key (name) order
  // The slices of partitioned variables, by their binary keys (which start
  // with a zero byte, as no tensor name does).
  std::map<std::string, IndexEntry> slice_entries;
};

// Parses and verifies the `.index` bytes (table checksums, header:
// little-endian, version; each entry's dtype, shape, shard, slices).
// Unimplemented for what tfg cannot hold: a dtype it lacks, a big-endian
// bundle, compressed blocks.
Result<Index> DecodeIndex(std::string_view bytes);

// The tensor `e` describes, from the bytes of its shard: bounds, size for
// the dtype and shape, and checksum checked before anything is allocated.
Result<Tensor> DecodeTensor(const IndexEntry& e, std::string_view shard);

// The `.index` bytes and the one data shard for `entries` (names
// non-empty and unique, tensors initialized), as TensorFlow's BundleWriter
// writes them. Entries are written in name order, as the table requires.
struct Encoded {
  std::string index;
  std::string data;
};
Result<Encoded> EncodeBundle(const std::vector<checkpoint::Entry>& entries);

// The file names beside `prefix`.
std::string IndexPath(const std::string& prefix);
std::string DataPath(const std::string& prefix, int32_t shard, int32_t num_shards);

}  // namespace tfg::tf_bundle
