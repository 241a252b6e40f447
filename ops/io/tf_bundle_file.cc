#include "ops/io/tf_bundle_file.h"

#include <sys/stat.h>

#include <map>

#include "ops/core/file_root.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"
#include "ops/io/tf_bundle_format.h"
#include "ops/io/tf_bundle_slices.h"

namespace tfg::tf_bundle {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<std::string> ReadWhole(const std::string& path, std::string_view what) {
  Result<std::string> bytes = ReadRegularFile(path, static_cast<uint64_t>(MemoryLimit()), what);
  if (bytes.status().code() == Code::kResourceExhausted) {
    return Status(Code::kResourceExhausted, fmt::format("{} (the memory limit, --memory-limit {})",
                                                        bytes.status().message(), FormatByteSize(MemoryLimit())));
  }
  return bytes;
}

Result<std::vector<checkpoint::Entry>> ReadResolved(const std::string& prefix) {
  TFG_ASSIGN_OR_RETURN(std::string index_bytes, ReadWhole(IndexPath(prefix), "checkpoint index"));
  auto index = DecodeIndex(index_bytes);
  if (!index.ok()) return Status(index.status()).Prepend(fmt::format("'{}': ", IndexPath(prefix)));
  std::map<int32_t, std::string> shards;  // only the shards some tensor is in
  auto decode = [&](const IndexEntry& e) -> Result<Tensor> {
    const std::string data_path = DataPath(prefix, e.shard, index->num_shards);
    auto it = shards.find(e.shard);
    if (it == shards.end()) {
      TFG_ASSIGN_OR_RETURN(std::string bytes, ReadWhole(data_path, "checkpoint data file"));
      it = shards.emplace(e.shard, std::move(bytes)).first;
    }
    auto t = DecodeTensor(e, it->second);
    if (!t.ok()) return Status(t.status()).Prepend(fmt::format("'{}': ", data_path));
    return t;
  };
  std::vector<checkpoint::Entry> out;
  for (const IndexEntry& e : index->entries) {
    auto t = e.slices.empty() ? decode(e) : AssembleSlices(e, *index, decode);
    if (!t.ok()) return t.status();
    out.push_back({e.name, std::move(t).value()});
  }
  return out;
}

}  // namespace

std::string BundlePrefixOf(const std::string& path) {
  if (IsRegularFile(IndexPath(path))) return path;
  constexpr std::string_view kSuffix = ".index";
  if (path.size() > kSuffix.size() && path.ends_with(kSuffix) && IsRegularFile(path)) {
    return path.substr(0, path.size() - kSuffix.size());
  }
  return "";
}

Result<std::vector<checkpoint::Entry>> ReadBundle(const std::string& asked) {
  TFG_ASSIGN_OR_RETURN(const std::string prefix, ResolveFilePath(asked));
  auto entries = ReadResolved(prefix);
  if (!entries.ok()) {
    return Status(entries.status()).Prepend(fmt::format("TensorFlow checkpoint '{}' is refused: ", asked));
  }
  return entries;
}

Status WriteBundle(const std::string& asked, const std::vector<checkpoint::Entry>& entries) {
  TFG_ASSIGN_OR_RETURN(const std::string prefix, ResolveFilePath(asked));
  auto encoded = EncodeBundle(entries);
  if (!encoded.ok()) return Status(encoded.status()).Prepend(fmt::format("cannot save '{}': ", asked));
  const WriteOptions options{.sync = true, .make_parents = true};
  TFG_RETURN_IF_ERROR(WriteFileReplacing(DataPath(prefix, 0, 1), encoded->data, options));
  return WriteFileReplacing(IndexPath(prefix), encoded->index, options);
}

}  // namespace tfg::tf_bundle
