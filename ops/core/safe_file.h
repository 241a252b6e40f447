// Files as every reader and writer of tfg opens them (docs/data.md, "Files
// and devices"):
//
// - A reader opens only a regular file. A FIFO would block it forever, a
//   device such as /dev/zero never ends, a directory holds no data: each is
//   refused at once with an error naming the path and what it is.
// - A writer writes a temporary file in the target's directory and renames
//   it over the target, so a crash never leaves half a file under the real
//   name. It replaces only a regular file (or creates an absent one): a
//   FIFO, device or socket is refused instead of being silently replaced
//   by a file. Through a symbolic link it writes the file the link points
//   to, and the link stays.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/core/status.h"

namespace tfg {

// An open regular file: `fd` (O_CLOEXEC, blocking reads) belongs to the
// caller, who closes it (or hands it to fdopen/gzdopen).
struct RegularFile {
  int fd = -1;
  uint64_t size = 0;
};

// Opens `path` for reading without ever blocking on it. Errors name the
// path, after `what` ("checkpoint", "script"; may be empty):
//   NotFound / PermissionDenied: "cannot open checkpoint 'x': <reason>";
//   InvalidArgument: "cannot read 'x': it is a FIFO, not a regular file".
Result<RegularFile> OpenRegularFile(const std::string& path, std::string_view what = "");

// The whole of the regular file `path`; a file larger than `max_bytes` is
// refused (ResourceExhausted) before anything is read.
Result<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string_view what = "");

// The file a write of `path` lands in: `path` itself when absent or a
// regular file, the target when `path` is a symbolic link (followed to
// the end). A FIFO, device, socket or directory there is an
// InvalidArgument error naming the path and what it is.
Result<std::string> WritablePath(const std::string& path);

struct WriteOptions {
  bool sync = false;          // fsync the file, then its directory (checkpoints)
  bool make_parents = false;  // create missing directories first
};

// Writes `bytes` as the new content of `path`: into a temporary file next
// to the file WritablePath(path) names, renamed over it. Errors name
// `path` and the system's reason; on error the old content is untouched
// and no temporary file is left.
Status WriteFileReplacing(const std::string& path, std::string_view bytes, const WriteOptions& options = {});

// "a FIFO", "a directory", "a character device", ... for st_mode; "" for a
// regular file.
std::string FileKindOf(unsigned mode);

}  // namespace tfg
