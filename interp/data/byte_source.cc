#include "interp/data/byte_source.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"
#include "ops/io/reader_input.h"

namespace tfg::data {
namespace {

// Deflate cannot expand data more than about 1032:1, so a gzip file of S
// bytes holds at most this many bytes per byte on disk.
constexpr uint64_t kMaxGzipRatio = 1040;
constexpr uint64_t kGzipSlack = 1 << 16;
constexpr size_t kChunk = size_t{1} << 30;  // gzread takes an unsigned length

class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, gzFile gz, uint64_t size)
      : path_(std::move(path)), gz_(gz), size_(size), gzipped_(gzdirect(gz) == 0) {}
  ~FileSource() override { gzclose_r(gz_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<size_t> Read(char* dst, size_t n) override {
    size_t total = 0;
    while (total < n) {
      unsigned want = static_cast<unsigned>(std::min(n - total, kChunk));
      int got = gzread(gz_, dst + total, want);
      int errnum = Z_OK;
      const char* msg = gzerror(gz_, &errnum);
      if (got < 0) return Failure(errnum, msg);
      // zlib reports a stream cut short as a soft error after the short read.
      if (errnum == Z_BUF_ERROR) truncated_ = true;
      if (got == 0) break;
      total += static_cast<size_t>(got);
      consumed_ += static_cast<uint64_t>(got);
    }
    return total;
  }

  uint64_t MaxRemaining() const override {
    uint64_t bound = size_;
    if (gzipped_) {
      bound = size_ > (UINT64_MAX - kGzipSlack) / kMaxGzipRatio ? UINT64_MAX : size_ * kMaxGzipRatio + kGzipSlack;
    }
    return bound > consumed_ ? bound - consumed_ : 0;
  }
  bool exact_size() const override { return !gzipped_; }
  bool truncated() const override { return truncated_; }
  const std::string& name() const override { return path_; }

 private:
  Status Failure(int errnum, const char* msg) const {
    if (errnum == Z_ERRNO) return Error(Code::kDataLoss, "error while reading '{}': {}", path_, std::strerror(errno));
    if (errnum == Z_MEM_ERROR) return Error(Code::kResourceExhausted, "out of memory while reading '{}'", path_);
    return Error(Code::kDataLoss, "'{}' is not valid gzip data: {}", path_, io::GzipReason(msg));
  }

  std::string path_;
  gzFile gz_;
  uint64_t size_;
  bool gzipped_;
  uint64_t consumed_ = 0;
  bool truncated_ = false;
};

class BufferSource final : public ByteSource {
 public:
  BufferSource(std::string_view bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}
  Result<size_t> Read(char* dst, size_t n) override {
    size_t k = std::min(n, bytes_.size() - pos_);
    if (k) std::memcpy(dst, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  uint64_t MaxRemaining() const override { return bytes_.size() - pos_; }
  const std::string& name() const override { return name_; }

 private:
  std::string_view bytes_;
  std::string name_;
  size_t pos_ = 0;
};

}  // namespace

Result<size_t> ByteSource::ReadFully(char* dst, size_t n) {
  size_t total = 0;
  while (total < n) {
    TFG_ASSIGN_OR_RETURN(size_t got, Read(dst + total, n - total));
    if (got == 0) break;
    total += got;
  }
  return total;
}

Result<bool> ByteSource::AtEnd() {
  char c;
  TFG_ASSIGN_OR_RETURN(size_t got, Read(&c, 1));
  return got == 0;
}

// Bounded by the memory budget as well as by malloc: a gzip bomb or a
// huge file is refused before it takes the memory tensors need.
Result<std::string> ByteSource::ReadRest() {
  std::string out;
  const uint64_t limit = static_cast<uint64_t>(MemoryLimit());
  try {
    char buf[1 << 16];
    for (;;) {
      TFG_ASSIGN_OR_RETURN(size_t got, Read(buf, sizeof buf));
      if (got == 0) break;
      if (out.size() + got > limit) {
        return Error(Code::kResourceExhausted, "'{}' does not fit in memory: it holds more than the memory limit of {} "
                     "(--memory-limit)", name(), FormatByteSize(MemoryLimit()));
      }
      out.append(buf, got);
    }
  } catch (const std::bad_alloc&) {
    return Error(Code::kResourceExhausted, "'{}' does not fit in memory", name());
  }
  return out;
}

Result<std::unique_ptr<ByteSource>> OpenFile(const std::string& path) {
  TFG_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  gzFile gz = gzdopen(file.fd, "rb");
  if (gz == nullptr) {
    ::close(file.fd);
    return Error(Code::kResourceExhausted, "out of memory while opening '{}'", path);
  }
  gzbuffer(gz, 1 << 17);  // before the first read, which gzdirect makes
  return std::unique_ptr<ByteSource>(new FileSource(path, gz, file.size));
}

std::unique_ptr<ByteSource> MemorySource(std::string_view bytes, std::string name) {
  return std::make_unique<BufferSource>(bytes, std::move(name));
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  return WriteFileReplacing(path, bytes);
}

}  // namespace tfg::data
