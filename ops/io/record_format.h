// The record file format of record_reader and write_records: a sequence of
// checksummed records (the layout of TFRecord files), each
//
//   u64 length (little-endian) | u32 masked CRC-32C of those 8 bytes |
//   `length` bytes of data      | u32 masked CRC-32C of the data
//
// (CRCs little-endian, masked with MaskCrc from crc32c.h). docs/input.md
// describes it byte by byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ops/core/status.h"
#include "ops/io/reader_input.h"

namespace tfg::io {

constexpr size_t kRecordHeaderBytes = 12;  // length + its CRC
constexpr size_t kRecordFooterBytes = 4;   // the data's CRC

// Appends one encoded record to `out`.
void AppendRecord(std::string& out, std::string_view data);

// Reads the next record of `file`; nullopt at a clean end of the file. A
// truncated or corrupt record is a DataLoss error naming the file and the
// byte offset where the record starts.
Result<std::optional<std::string>> ReadRecord(InputFile& file);

}  // namespace tfg::io
