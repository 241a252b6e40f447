#include "interp/language/stdlib_location.h"

#include <algorithm>
#include <filesystem>

// The source tree's stdlib/ (tfg_language's definition) and the build
// folder (this file's alone, CMakeLists.txt), both absolute.
#ifndef TFG_STDLIB_DIR
#define TFG_STDLIB_DIR "stdlib"
#endif
#ifndef TFG_BUILD_DIR
#define TFG_BUILD_DIR ""
#endif

namespace tfg {

namespace fs = std::filesystem;

std::string ExecutableDir() {
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) return "";
  return exe.parent_path().string();
}

namespace {

// Whether `dir` is `root` or inside it, compared canonically.
bool IsInside(const fs::path& dir, const fs::path& root) {
  std::error_code ec;
  fs::path r = fs::canonical(root, ec);
  if (ec || r.empty()) return false;
  return std::mismatch(r.begin(), r.end(), dir.begin(), dir.end()).first == r.end();
}

}  // namespace

std::string DefaultStdlibDir() {
  std::string exe_dir = ExecutableDir();
  // No /proc (not Linux, or a sandbox without it): where the .deb puts it.
  if (exe_dir.empty()) return "/usr/share/tfg/stdlib";
  fs::path installed = (fs::path(exe_dir) / ".." / "share" / "tfg" / "stdlib").lexically_normal();
  std::error_code ec;
  if (fs::is_directory(installed, ec)) return installed.string();
  // A binary built without TFG_BUILD_DIR (the fuzzers, tests/fuzz) is never
  // installed.
  const std::string build_dir = TFG_BUILD_DIR;
  if (build_dir.empty() || IsInside(exe_dir, build_dir)) return TFG_STDLIB_DIR;
  // Neither: the installed location, which the "cannot find module" error
  // then names, pointing at what is missing.
  return installed.string();
}

}  // namespace tfg
