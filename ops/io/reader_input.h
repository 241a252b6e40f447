// The bytes of one input file, as the readers (text_line_reader,
// fixed_length_record_reader, record_reader) see them: read as they are, or
// gunzipped on the fly for compression="gzip". Buffered, so a reader can
// take a line or a few bytes at a time cheaply.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "ops/core/status.h"

namespace tfg::io {

enum class Compression { kNone, kGzip };

// The longest line or record a reader hands out (docs/input.md): 256 MiB,
// or the memory budget (--memory-limit) when that is smaller. A longer one
// is an error naming the file, found before it is all in memory.
inline constexpr uint64_t kMaxRecordBytesCap = uint64_t{256} << 20;
uint64_t MaxRecordBytes();
// The error for a line or record of more than MaxRecordBytes() bytes
// starting at `offset` of `path` ("line" or "record" is `what`).
Status RecordTooLong(const std::string& path, const std::string& what, uint64_t offset, uint64_t bytes);

// "" or "gzip"; anything else is an InvalidArgument naming the choices.
Result<Compression> ParseCompression(const std::string& name);

// zlib's reason for a gzip error (gzerror's message), without the file name
// or "<fd:N>" zlib puts before it: the caller names the file.
std::string GzipReason(const char* message);

class InputFile {
 public:
  // Errors name the path: NotFound, PermissionDenied, or "not a regular
  // file" (a FIFO, device or directory is refused without reading it).
  static Result<std::unique_ptr<InputFile>> Open(const std::string& path, Compression compression);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Appends up to `n` bytes to `out` and returns how many; fewer only at the
  // end of the file. The string grows with the bytes actually read, so a
  // length read from a corrupt file cannot make it allocate more than the
  // file holds.
  Result<size_t> ReadAppend(std::string& out, size_t n);
  // The next line without its "\n" (or "\r\n"); nullopt at the end. A last
  // line without a newline still counts. A line longer than
  // MaxRecordBytes() is a ResourceExhausted error.
  Result<std::optional<std::string>> ReadLine();

  // Bytes consumed so far (of the uncompressed data), for error messages.
  uint64_t offset() const { return offset_; }
  // Bytes left when that is known (an uncompressed file), else nullopt.
  std::optional<uint64_t> remaining() const;
  const std::string& path() const { return path_; }

 private:
  InputFile(std::string path, Compression compression, void* handle, uint64_t size);
  Result<bool> Refill();  // false at the end of the file
  Result<size_t> RawRead(char* dst, size_t n);

  std::string path_;
  Compression compression_;
  void* handle_;  // FILE* or gzFile
  uint64_t size_;
  uint64_t offset_ = 0;
  std::string buffer_;
  size_t buffer_pos_ = 0;
  bool checked_gzip_ = false;
};

}  // namespace tfg::io
