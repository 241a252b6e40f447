// Where file-touching kernels (save, restore, readers, summary writers) may
// go. A worker serves whoever its masters are, so `tfg --worker` confines
// those kernels to one directory (`--data-dir DIR`, default its working
// directory): a relative path is taken relative to it, and a path that
// leaves it (through .. or a symlink) is refused. The master and a plain
// `tfg script.tfg` set no root and open what the script names.
#pragma once

#include <string>

#include "ops/core/status.h"

namespace tfg {

// Confines every later ResolveFilePath to `dir` (made absolute, symlinks
// resolved). Error when `dir` is not a directory.
Status SetFileRoot(const std::string& dir);
// The root, "" when none is set.
std::string FileRoot();

// The path a kernel should open for `path`: `path` itself without a root;
// with one, `path` under it, or a PermissionDenied error naming `path`
// and the root.
Result<std::string> ResolveFilePath(const std::string& path);
// The same against an explicit root (canonical, as SetFileRoot keeps it).
Result<std::string> ResolveUnder(const std::string& root, const std::string& path);

}  // namespace tfg
