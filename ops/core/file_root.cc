#include "ops/core/file_root.h"

#include <filesystem>
#include <mutex>

namespace tfg {
namespace {

std::mutex g_mu;
std::string g_root;  // guarded by g_mu; canonical, no trailing '/'

// True when `path` (canonical as far as it exists) is `root` or inside it.
bool IsUnder(const std::filesystem::path& path, const std::string& root) {
  const std::string p = path.string();
  return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 &&
                       (root == "/" || p[root.size()] == '/'));
}

}  // namespace

Status SetFileRoot(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::canonical(dir, ec);
  if (ec || !std::filesystem::is_directory(root, ec)) {
    return Error(Code::kFailedPrecondition, "--data-dir '{}' is not a directory{}", dir,
                 ec ? ": " + ec.message() : "");
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_root = root.string();
  return Status::OK();
}

std::string FileRoot() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_root;
}

// weakly_canonical resolves the symlinks of the part that exists and
// folds ".." lexically in the rest, so a file about to be created is
// checked where it will really land.
Result<std::string> ResolveFilePath(const std::string& path) {
  const std::string root = FileRoot();
  if (root.empty()) return path;
  return ResolveUnder(root, path);
}

Result<std::string> ResolveUnder(const std::string& root, const std::string& path) {
  std::filesystem::path full = std::filesystem::path(path).is_absolute() ? std::filesystem::path(path)
                                                                          : std::filesystem::path(root) / path;
  std::error_code ec;
  std::filesystem::path real = std::filesystem::weakly_canonical(full, ec);
  if (ec) return Error(Code::kPermissionDenied, "cannot resolve the path '{}': {}", path, ec.message());
  if (!IsUnder(real, root)) {
    return Error(Code::kPermissionDenied, "the path '{}' is outside this worker's --data-dir {}", path, root);
  }
  return real.string();
}

}  // namespace tfg
