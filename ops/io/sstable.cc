#include "ops/io/sstable.h"

#include <bit>
#include <cstring>

#include "ops/io/crc32c.h"
#include "ops/io/proto_wire.h"

namespace tfg::sstable {
namespace {

static_assert(std::endian::native == std::endian::little, "the table codec assumes a little-endian host");

// TensorFlow's table options (tensorflow/core/lib/io/table_options.h).
constexpr size_t kBlockBytes = 256 * 1024;
constexpr int kRestartInterval = 16;

Status Corrupt(const std::string& what) { return Status(Code::kDataLoss, "index table: " + what); }

uint32_t Fixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void PutFixed32(std::string& out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool GetHandle(std::string_view& in, BlockHandle& h) {
  return proto_wire::GetVarint(in, h.offset) && proto_wire::GetVarint(in, h.size);
}

void PutHandle(std::string& out, const BlockHandle& h) {
  proto_wire::PutVarint(out, h.offset);
  proto_wire::PutVarint(out, h.size);
}

// The contents of the block `h` points at, once its bounds, type and
// checksum hold. `limit`: where the blocks end (the footer's start).
Result<std::string_view> ReadBlock(std::string_view file, size_t limit, const BlockHandle& h, std::string_view what) {
  if (h.offset > limit || h.size > limit - h.offset || limit - h.offset - h.size < kBlockTrailerBytes) {
    return Corrupt(fmt::format("the {} block (bytes {}..+{}) runs past the end of the file; it is truncated", what,
                               h.offset, h.size));
  }
  std::string_view block = file.substr(h.offset, h.size);
  const char* trailer = file.data() + h.offset + h.size;
  if (UnmaskCrc(Fixed32(trailer + 1)) != Crc32c(file.data() + h.offset, h.size + 1)) {
    return Corrupt(fmt::format("the {} block at byte {} fails its checksum", what, h.offset));
  }
  if (trailer[0] != 0) {
    return Status(Code::kUnimplemented,
                  fmt::format("index table: the {} block at byte {} is compressed (type {}); compressed tables are "
                              "not supported (TensorFlow writes tensor bundles uncompressed)",
                              what, h.offset, static_cast<int>(trailer[0])));
  }
  return block;
}

// Appends the entries of one block to `out`, checking that keys increase.
Status ParseBlock(std::string_view block, std::string_view what, KeyValues& out) {
  if (block.size() < 4) return Corrupt(fmt::format("a {} block of {} bytes has no restart count", what, block.size()));
  const uint64_t restarts = Fixed32(block.data() + block.size() - 4);
  if (restarts == 0 || restarts > (block.size() - 4) / 4) {
    return Corrupt(fmt::format("a {} block claims {} restart points in {} bytes", what, restarts, block.size()));
  }
  std::string_view in = block.substr(0, block.size() - 4 * (restarts + 1));
  std::string key;
  while (!in.empty()) {
    uint64_t shared = 0, unshared = 0, value_len = 0;
    if (!proto_wire::GetVarint(in, shared) || !proto_wire::GetVarint(in, unshared) ||
        !proto_wire::GetVarint(in, value_len) || shared > key.size() || unshared > in.size() ||
        value_len > in.size() - unshared) {
      return Corrupt(fmt::format("a {} block holds an entry whose lengths run past the block", what));
    }
    key.resize(shared);
    key.append(in.substr(0, unshared));
    if (!out.empty() && !(out.back().first < key)) {
      return Corrupt(fmt::format("keys are out of order in a {} block", what));
    }
    out.emplace_back(key, std::string(in.substr(unshared, value_len)));
    in.remove_prefix(unshared + value_len);
  }
  return Status::OK();
}

// Builds one block: prefix-compressed entries, a restart point every
// kRestartInterval entries.
class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval) : restart_interval_(restart_interval) {}

  void Add(std::string_view key, std::string_view value) {
    size_t shared = 0;
    if (count_ % restart_interval_ == 0) {
      restarts_.push_back(static_cast<uint32_t>(buf_.size()));
    } else {
      while (shared < key.size() && shared < last_.size() && key[shared] == last_[shared]) ++shared;
    }
    proto_wire::PutVarint(buf_, shared);
    proto_wire::PutVarint(buf_, key.size() - shared);
    proto_wire::PutVarint(buf_, value.size());
    buf_.append(key.substr(shared));
    buf_.append(value);
    last_.assign(key);
    ++count_;
  }
  bool empty() const { return count_ == 0; }
  size_t size() const { return buf_.size() + 4 * (restarts_.size() + 1); }
  const std::string& last_key() const { return last_; }

  // The block's bytes; the builder starts over.
  std::string Finish() {
    if (restarts_.empty()) restarts_.push_back(0);
    std::string out = std::move(buf_);
    for (uint32_t r : restarts_) PutFixed32(out, r);
    PutFixed32(out, static_cast<uint32_t>(restarts_.size()));
    *this = BlockBuilder(restart_interval_);
    return out;
  }

 private:
  std::string buf_;
  std::vector<uint32_t> restarts_;
  std::string last_;
  int count_ = 0;
  int restart_interval_;
};

// LevelDB's bytewise comparator shortens index keys: the shortest key k
// with start <= k < limit (FindShortestSeparator), or, after the last
// block, a short key >= start (FindShortSuccessor). Doing the same makes
// the index byte for byte what TensorFlow writes.
std::string ShortestSeparator(const std::string& start, std::string_view limit) {
  size_t diff = 0;
  while (diff < start.size() && diff < limit.size() && start[diff] == limit[diff]) ++diff;
  if (diff >= start.size() || diff >= limit.size()) return start;  // one is a prefix of the other
  const auto byte = static_cast<uint8_t>(start[diff]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
    std::string out = start.substr(0, diff + 1);
    out[diff] = static_cast<char>(byte + 1);
    return out;
  }
  return start;
}

std::string ShortSuccessor(const std::string& key) {
  for (size_t i = 0; i < key.size(); ++i) {
    const auto byte = static_cast<uint8_t>(key[i]);
    if (byte != 0xff) {
      std::string out = key.substr(0, i + 1);
      out[i] = static_cast<char>(byte + 1);
      return out;
    }
  }
  return key;  // all 0xff bytes
}

// Appends `block` with its trailer to `file`; where it went.
BlockHandle AppendBlock(std::string& file, const std::string& block) {
  BlockHandle h{file.size(), block.size()};
  file += block;
  file.push_back(0);  // uncompressed
  PutFixed32(file, MaskCrc(Crc32c(file.data() + h.offset, block.size() + 1)));
  return h;
}

}  // namespace

Result<KeyValues> ReadTable(std::string_view file) {
  if (file.size() < kFooterBytes) {
    return Corrupt(fmt::format("{} bytes is shorter than the table footer; the file is truncated", file.size()));
  }
  const size_t footer_at = file.size() - kFooterBytes;
  uint64_t magic = 0;
  std::memcpy(&magic, file.data() + file.size() - 8, 8);
  if (magic != kTableMagic) {
    return Corrupt("it does not end with the table magic; the file is truncated, has extra bytes, or is not a "
                   "TensorFlow checkpoint index");
  }
  std::string_view footer = file.substr(footer_at, kFooterBytes - 8);
  BlockHandle metaindex, index;
  if (!GetHandle(footer, metaindex) || !GetHandle(footer, index)) return Corrupt("the footer's block handles are malformed");
  // The metaindex block is empty in a bundle; it is verified all the same.
  TFG_ASSIGN_OR_RETURN(std::string_view meta_block, ReadBlock(file, footer_at, metaindex, "metaindex"));
  KeyValues meta;
  TFG_RETURN_IF_ERROR(ParseBlock(meta_block, "metaindex", meta));
  TFG_ASSIGN_OR_RETURN(std::string_view index_block, ReadBlock(file, footer_at, index, "index"));
  KeyValues handles;
  TFG_RETURN_IF_ERROR(ParseBlock(index_block, "index", handles));
  KeyValues out;
  for (const auto& [last_key, encoded] : handles) {
    std::string_view in = encoded;
    BlockHandle h;
    if (!GetHandle(in, h)) return Corrupt("an index entry holds a malformed block handle");
    TFG_ASSIGN_OR_RETURN(std::string_view block, ReadBlock(file, footer_at, h, "data"));
    const size_t before = out.size();
    TFG_RETURN_IF_ERROR(ParseBlock(block, "data", out));
    if (out.size() > before && out.back().first > last_key) {
      return Corrupt(fmt::format("a data block holds keys past its index key at byte {}", h.offset));
    }
  }
  return out;
}

Result<std::string> WriteTable(const KeyValues& entries) {
  std::string file;
  // LevelDB restarts at every entry of the index block.
  BlockBuilder data(kRestartInterval), index(1);
  // As LevelDB's TableBuilder: a full block's index entry is added when
  // the next key is known, so that its key can be a short separator.
  std::string pending;  // the handle of a finished block not yet indexed
  std::string pending_last;
  auto flush = [&] {
    pending_last = data.last_key();
    pending.clear();
    PutHandle(pending, AppendBlock(file, data.Finish()));
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && !(entries[i - 1].first < entries[i].first)) {
      return InvalidArgument("index table: keys must strictly increase, '{}' follows '{}'", entries[i].first,
                             entries[i - 1].first);
    }
    if (!pending.empty()) {
      index.Add(ShortestSeparator(pending_last, entries[i].first), pending);
      pending.clear();
    }
    data.Add(entries[i].first, entries[i].second);
    if (data.size() >= kBlockBytes) flush();
  }
  if (!data.empty()) flush();
  if (!pending.empty()) index.Add(ShortSuccessor(pending_last), pending);
  BlockBuilder meta(kRestartInterval);
  const BlockHandle metaindex = AppendBlock(file, meta.Finish());
  const BlockHandle index_handle = AppendBlock(file, index.Finish());
  std::string footer;
  PutHandle(footer, metaindex);
  PutHandle(footer, index_handle);
  footer.resize(kFooterBytes - 8, '\0');
  PutFixed32(footer, static_cast<uint32_t>(kTableMagic & 0xffffffffu));
  PutFixed32(footer, static_cast<uint32_t>(kTableMagic >> 32));
  return file + footer;
}

}  // namespace tfg::sstable
