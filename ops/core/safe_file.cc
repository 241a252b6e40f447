#include "ops/core/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

namespace tfg {
namespace {

namespace fs = std::filesystem;

// Links followed before giving up, as the kernel's own limit (ELOOP).
constexpr int kMaxSymlinkHops = 40;

Code CodeForErrno(int err) {
  if (err == ENOENT || err == ENOTDIR) return Code::kNotFound;
  if (err == EACCES || err == EPERM || err == EROFS) return Code::kPermissionDenied;
  return Code::kInvalidArgument;
}

std::string Named(std::string_view what, const std::string& path) {
  return what.empty() ? fmt::format("'{}'", path) : fmt::format("{} '{}'", what, path);
}

Status SystemError(std::string_view verb, std::string_view what, const std::string& path, int err) {
  return Error(CodeForErrno(err), "cannot {} {}: {}", verb, Named(what, path), std::strerror(err));
}

Status NotRegularForRead(std::string_view what, const std::string& path, unsigned mode) {
  return InvalidArgument("cannot read {}: it is {}, not a regular file", Named(what, path), FileKindOf(mode));
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error(Code::kDataLoss, "error while writing '{}': {}", path, std::strerror(n < 0 ? errno : EIO));
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

// So that the rename itself survives a crash. Best effort: some file
// systems refuse to sync a directory, and the data is safe either way.
void SyncDirectory(const fs::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// A name no other writer (thread or process) uses at the same time.
std::string TemporaryName(const std::string& target) {
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{}.tmp-{}-{}", target, ::getpid(), counter.fetch_add(1, std::memory_order_relaxed));
}

// Writes `bytes` into the new file `tmp`; removes it again on failure.
Status WriteTemporary(const std::string& tmp, const std::string& path, std::string_view bytes, bool sync,
                      const struct stat* replaced) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return SystemError("create", "", path, errno);
  // The new file keeps the permissions of the one it replaces.
  if (replaced != nullptr) (void)::fchmod(fd, replaced->st_mode & 07777);
  Status s = WriteAll(fd, bytes, path);
  if (s.ok() && sync && ::fsync(fd) != 0) s = Error(Code::kDataLoss, "cannot sync '{}': {}", path, std::strerror(errno));
  if (::close(fd) != 0 && s.ok()) s = Error(Code::kDataLoss, "error while writing '{}': {}", path, std::strerror(errno));
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace

std::string FileKindOf(unsigned mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

// stat first, so that a FIFO or device is refused without opening it
// (opening a FIFO blocks until a writer comes; opening some devices acts);
// O_NONBLOCK and fstat close the gap where the path changes in between.
Result<RegularFile> OpenRegularFile(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return SystemError("open", what, path, errno);
  if (!S_ISREG(st.st_mode)) return NotRegularForRead(what, path, st.st_mode);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return SystemError("open", what, path, errno);
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    if (!S_ISREG(st.st_mode)) return NotRegularForRead(what, path, st.st_mode);
    return SystemError("open", what, path, err);
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return RegularFile{fd, static_cast<uint64_t>(st.st_size)};
}

Result<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string_view what) {
  TFG_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path, what));
  auto too_large = [&](uint64_t size) {
    return Error(Code::kResourceExhausted, "cannot read {}: it is {} bytes, more than the {} that may be read",
                 Named(what, path), size, max_bytes);
  };
  if (file.size > max_bytes) {
    ::close(file.fd);
    return too_large(file.size);
  }
  std::string text;
  Status s;
  try {
    text.resize(file.size);
    size_t done = 0;
    // The file may grow while it is read: one byte more than allowed is
    // enough to refuse it.
    for (;;) {
      if (done == text.size()) text.resize(std::min<uint64_t>(done + (1 << 16), max_bytes + 1));
      if (done == text.size()) break;
      ssize_t n = ::read(file.fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        s = SystemError("read", what, path, errno);
        break;
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    text.resize(done);
  } catch (const std::bad_alloc&) {
    s = Error(Code::kResourceExhausted, "out of memory reading {} ({} bytes)", Named(what, path), file.size);
  }
  ::close(file.fd);
  if (!s.ok()) return s;
  if (text.size() > max_bytes) return too_large(text.size());
  return text;
}

Result<std::string> WritablePath(const std::string& path) {
  std::string target = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
      if (errno == ENOENT) return target;  // created by the write
      return SystemError("write", "", path, errno);
    }
    if (S_ISREG(st.st_mode)) return target;
    if (!S_ISLNK(st.st_mode)) {
      const std::string via = target == path ? "" : fmt::format(" (where the link '{}' leads)", path);
      return InvalidArgument("cannot write '{}': it is {}{}, not a regular file; writers replace only regular files",
                             target, FileKindOf(st.st_mode), via);
    }
    if (hops == kMaxSymlinkHops) return SystemError("write", "", path, ELOOP);
    std::error_code ec;
    fs::path link = fs::read_symlink(target, ec);
    if (ec) return Error(CodeForErrno(ec.value()), "cannot write '{}': {}", path, ec.message());
    target = link.is_absolute() ? link.string() : (fs::path(target).parent_path() / link).string();
  }
}

Status WriteFileReplacing(const std::string& path, std::string_view bytes, const WriteOptions& options) {
  TFG_ASSIGN_OR_RETURN(const std::string target, WritablePath(path));
  const fs::path dir = fs::path(target).parent_path();
  if (options.make_parents && !dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error(CodeForErrno(ec.value()), "cannot create directory '{}': {}", dir.string(), ec.message());
  }
  struct stat old {};
  const bool replaces = ::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  const std::string tmp = TemporaryName(target);
  TFG_RETURN_IF_ERROR(WriteTemporary(tmp, path, bytes, options.sync, replaces ? &old : nullptr));
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    Status s = SystemError("write", "", path, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  if (options.sync) SyncDirectory(dir);
  return Status::OK();
}

}  // namespace tfg
