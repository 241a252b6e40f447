// Where the data readers (IDX, NPY, CSV) get their bytes: a file on disk,
// gunzipped on the fly when it starts with the gzip magic (1f 8b), or a
// buffer in memory. The readers stream from a source so that a corrupt
// header cannot make them allocate more than the source can hold.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ops/core/status.h"

namespace tfg::data {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills `dst` with up to `n` bytes and returns how many; fewer only at the
  // end of the data. Errors: unreadable file, corrupt gzip stream.
  virtual Result<size_t> Read(char* dst, size_t n) = 0;
  // An upper bound on the bytes Read can still return in total: what a
  // header may promise is checked against it before anything is allocated.
  virtual uint64_t MaxRemaining() const = 0;
  // True when MaxRemaining() is exactly what is left (not a gzip bound).
  virtual bool exact_size() const { return true; }
  // True once the data ended inside a gzip stream (a cut .gz file).
  virtual bool truncated() const { return false; }
  // The file's path (or the name given to a buffer), for messages.
  virtual const std::string& name() const = 0;

  // Reads until `n` bytes or the end; returns how many.
  Result<size_t> ReadFully(char* dst, size_t n);
  // True when no byte is left (reads one to find out).
  Result<bool> AtEnd();
  // Everything that is left; ResourceExhausted if it does not fit in memory.
  Result<std::string> ReadRest();
};

// Opens `path` for reading. Errors name the path and the system's reason:
// "cannot open 'x.idx': No such file or directory"; a FIFO, device or
// directory is refused at once (ops/core/safe_file.h).
Result<std::unique_ptr<ByteSource>> OpenFile(const std::string& path);

// A source over `bytes` (not copied: they must outlive the source).
std::unique_ptr<ByteSource> MemorySource(std::string_view bytes, std::string name);

// Writes `bytes` to `path` atomically (a temporary file renamed over it), so
// a crash never leaves half a file under the real name; only a regular file
// is replaced (WriteFileReplacing, ops/core/safe_file.h).
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace tfg::data
