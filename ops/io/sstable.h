// LevelDB's sorted string table, as TensorFlow's tensor bundle uses it for
// its `.index` file (tensorflow/core/lib/io/table*): data blocks of
// prefix-compressed (key, value) entries with restart points, an index
// block pointing at them, an empty metaindex block, and a 48-byte footer
// ending with the table magic. Every block is followed by a type byte
// (0: uncompressed, 1: snappy) and the masked CRC-32C of block and type.
//
// Whole tables only: the bundle's index is small and read entirely, so
// there is no seeking, only a full, verified scan.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/core/status.h"

namespace tfg::sstable {

inline constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr size_t kFooterBytes = 48;
inline constexpr size_t kBlockTrailerBytes = 5;

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Every entry of the table in `file`, in key order. Verifies the footer's
// magic, every block's bounds and checksum, every entry's lengths, and
// that keys strictly increase. A compressed block is Unimplemented; other
// errors are DataLoss and say what is wrong and where.
Result<KeyValues> ReadTable(std::string_view file);

// A table holding `entries`, whose keys must strictly increase (error
// otherwise), written as TensorFlow's TableBuilder writes one with
// compression off.
Result<std::string> WriteTable(const KeyValues& entries);

}  // namespace tfg::sstable
