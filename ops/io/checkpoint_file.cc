#include "ops/io/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ops/core/file_root.h"

namespace tfg::checkpoint {
namespace {

namespace fs = std::filesystem;

Status SystemError(const std::string& what, const std::string& path, int err) {
  return Status(Code::kUnavailable, fmt::format("cannot {} '{}': {}", what, path, std::strerror(err)));
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return SystemError("write", path, errno);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

// Writes and syncs a new file; removes it again when anything fails.
Status WriteSynced(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return SystemError("create", path, errno);
  Status s = WriteAll(fd, bytes, path);
  if (s.ok() && ::fsync(fd) != 0) s = SystemError("sync", path, errno);
  if (::close(fd) != 0 && s.ok()) s = SystemError("close", path, errno);
  if (!s.ok()) ::unlink(path.c_str());
  return s;
}

// So that the rename itself survives a crash. Best effort: some file
// systems refuse to sync a directory, and the data is safe either way.
void SyncDirectory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

Status MakeParents(const fs::path& path) {
  fs::path parent = path.parent_path();
  if (parent.empty()) return Status::OK();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return Status(Code::kUnavailable, fmt::format("cannot create directory '{}': {}", parent.string(), ec.message()));
  return Status::OK();
}

Result<std::string> ReadWhole(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status(Code::kInvalidArgument, fmt::format("'{}' is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Code::kNotFound, fmt::format("cannot open checkpoint '{}': {}", path, std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return SystemError("read", path, errno);
  return bytes;
}

// The step of "<prefix>-<digits>", or -1 for any other name.
int64_t StepOf(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + "-";
  if (name.size() <= head.size() || name.compare(0, head.size(), head) != 0) return -1;
  const std::string digits = name.substr(head.size());
  if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stoll(digits);
}

}  // namespace

Status Write(const std::string& asked, const std::vector<Entry>& entries) {
  TFG_ASSIGN_OR_RETURN(const std::string path, ResolveFilePath(asked));
  auto bytes = Encode(entries);
  if (!bytes.ok()) return Status(bytes.status()).Prepend(fmt::format("cannot save '{}': ", path));
  TFG_RETURN_IF_ERROR(MakeParents(path));
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  TFG_RETURN_IF_ERROR(WriteSynced(tmp, *bytes));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = SystemError("rename the new checkpoint to", path, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  SyncDirectory(fs::path(path).parent_path());
  return Status::OK();
}

Result<std::vector<Entry>> Read(const std::string& asked) {
  TFG_ASSIGN_OR_RETURN(const std::string path, ResolveFilePath(asked));
  TFG_ASSIGN_OR_RETURN(std::string bytes, ReadWhole(path));
  auto entries = Decode(bytes);
  if (!entries.ok()) return Status(entries.status()).Prepend(fmt::format("checkpoint '{}' is refused: ", path));
  return entries;
}

bool LooksLikeCheckpoint(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char head[sizeof(kMagic)] = {};
  in.read(head, sizeof(head));
  return in.gcount() == sizeof(head) && std::memcmp(head, kMagic, sizeof(kMagic)) == 0;
}

Result<std::vector<std::pair<int64_t, std::string>>> List(const std::string& dir, const std::string& prefix) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return found;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return Status(Code::kUnavailable, fmt::format("cannot list directory '{}': {}", dir, ec.message()));
  for (; it != end; it.increment(ec)) {
    if (ec) return Status(Code::kUnavailable, fmt::format("cannot list directory '{}': {}", dir, ec.message()));
    int64_t step = StepOf(it->path().filename().string(), prefix);
    if (step >= 0 && it->is_regular_file(ec)) found.emplace_back(step, (fs::path(dir) / it->path().filename()).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace tfg::checkpoint
