// What a reader does with one file: open it and hand out its records one by
// one. Each reader op (text_line_reader, fixed_length_record_reader,
// record_reader) has one kind of source; ReaderState (reader_state.h) moves
// it from file to file as the filename queue gives them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ops/core/status.h"
#include "ops/io/reader_input.h"

namespace tfg::io {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // Starts reading `path`, closing the file read before. Errors name the path.
  virtual Status Open(const std::string& path) = 0;
  // The next record of the open file; nullopt at its end (then the file is
  // closed). Errors name the file and where in it the problem is.
  virtual Result<std::optional<std::string>> Next() = 0;
};

std::unique_ptr<RecordSource> MakeTextLineSource(Compression compression, int64_t skip_header_lines);
std::unique_ptr<RecordSource> MakeFixedLengthSource(Compression compression, int64_t record_bytes,
                                                    int64_t header_bytes, int64_t footer_bytes);
std::unique_ptr<RecordSource> MakeRecordFileSource(Compression compression);

}  // namespace tfg::io
