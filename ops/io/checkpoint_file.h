// Checkpoint files on disk: written atomically (a temporary file in the same
// directory, fsync, rename, fsync of the directory), so a crash leaves the
// old checkpoint or the new one under the real name, never half of one; and
// read whole and verified before anything uses them. Only regular files are
// read or replaced: a FIFO or device is refused (ops/core/safe_file.h), and
// a checkpoint larger than the memory budget is refused unread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/io/checkpoint_format.h"

namespace tfg::checkpoint {

// Encodes `entries` and writes them to `path`, creating its parent
// directories. Errors name the path and the system's reason.
Status Write(const std::string& path, const std::vector<Entry>& entries);

// Reads and verifies the checkpoint at `path`; errors name the file and
// what is wrong with it. A TensorFlow V2 checkpoint (`path.index` and its
// data shards beside it, ops/io/tf_bundle_file.h) is read too.
Result<std::vector<Entry>> Read(const std::string& path);

// Whether `path` is a regular file that starts with the checkpoint magic.
bool LooksLikeCheckpoint(const std::string& path);

// The checkpoints `dir/<prefix>-<step>` in `dir`, as (step, path) sorted by
// step; an absent directory holds none. Temporary files of an unfinished
// write (`...tmp-<pid>-<n>`) are not checkpoints.
Result<std::vector<std::pair<int64_t, std::string>>> List(const std::string& dir, const std::string& prefix);

}  // namespace tfg::checkpoint
