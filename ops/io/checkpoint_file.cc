#include "ops/io/checkpoint_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "ops/core/file_root.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"
#include "ops/io/tf_bundle_file.h"

namespace tfg::checkpoint {
namespace {

namespace fs = std::filesystem;

// A checkpoint is read whole before it is decoded: one larger than the
// memory budget could not be restored anyway.
Result<std::string> ReadWhole(const std::string& path) {
  Result<std::string> bytes = ReadRegularFile(path, static_cast<uint64_t>(MemoryLimit()), "checkpoint");
  if (bytes.status().code() == Code::kResourceExhausted) {
    return Status(Code::kResourceExhausted, fmt::format("{} (the memory limit, --memory-limit {})",
                                                        bytes.status().message(), FormatByteSize(MemoryLimit())));
  }
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
  return WriteFileReplacing(path, *bytes, WriteOptions{.sync = true, .make_parents = true});
}

Result<std::vector<Entry>> Read(const std::string& asked) {
  TFG_ASSIGN_OR_RETURN(const std::string path, ResolveFilePath(asked));
  // TensorFlow names a V2 checkpoint by its prefix, with PREFIX.index beside
  // it; a tfg checkpoint of that name wins.
  if (!LooksLikeCheckpoint(path)) {
    const std::string prefix = tf_bundle::BundlePrefixOf(path);
    if (!prefix.empty()) return tf_bundle::ReadBundle(prefix);
  }
  TFG_ASSIGN_OR_RETURN(std::string bytes, ReadWhole(path));
  auto entries = Decode(bytes);
  if (!entries.ok()) return Status(entries.status()).Prepend(fmt::format("checkpoint '{}' is refused: ", path));
  return entries;
}

bool LooksLikeCheckpoint(const std::string& path) {
  Result<RegularFile> file = OpenRegularFile(path);
  if (!file.ok()) return false;
  char head[sizeof(kMagic)] = {};
  const ssize_t got = ::read(file->fd, head, sizeof(head));
  ::close(file->fd);
  return got == static_cast<ssize_t>(sizeof(head)) && std::memcmp(head, kMagic, sizeof(kMagic)) == 0;
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
