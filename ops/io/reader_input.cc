#include "ops/io/reader_input.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ops/core/file_root.h"
#include "ops/core/memory_budget.h"
#include "ops/core/safe_file.h"

namespace tfg::io {
namespace {

constexpr size_t kBufferSize = size_t{1} << 16;

}  // namespace

uint64_t MaxRecordBytes() { return std::min(kMaxRecordBytesCap, static_cast<uint64_t>(MemoryLimit())); }

Status RecordTooLong(const std::string& path, const std::string& what, uint64_t offset, uint64_t bytes) {
  return Error(Code::kResourceExhausted,
               "'{}': the {} at byte offset {} is longer than {} bytes, the most a reader takes at once "
               "(256 MiB, or --memory-limit when smaller; this one holds {} bytes or more)",
               path, what, offset, MaxRecordBytes(), bytes);
}

Result<Compression> ParseCompression(const std::string& name) {
  if (name.empty()) return Compression::kNone;
  if (name == "gzip") return Compression::kGzip;
  return InvalidArgument("compression must be \"\" or \"gzip\", got \"{}\"", name);
}

Result<std::unique_ptr<InputFile>> InputFile::Open(const std::string& asked, Compression compression) {
  TFG_ASSIGN_OR_RETURN(const std::string path, ResolveFilePath(asked));
  TFG_ASSIGN_OR_RETURN(RegularFile file, OpenRegularFile(path));
  void* handle = nullptr;
  if (compression == Compression::kGzip) {
    handle = gzdopen(file.fd, "rb");
  } else {
    handle = fdopen(file.fd, "rb");
  }
  if (handle == nullptr) {
    const int err = errno;
    ::close(file.fd);
    return Error(Code::kResourceExhausted, "cannot open '{}': {}", path, std::strerror(err ? err : ENOMEM));
  }
  return std::unique_ptr<InputFile>(new InputFile(path, compression, handle, file.size));
}

InputFile::InputFile(std::string path, Compression compression, void* handle, uint64_t size)
    : path_(std::move(path)), compression_(compression), handle_(handle), size_(size) {}

InputFile::~InputFile() {
  if (compression_ == Compression::kGzip) {
    gzclose_r(static_cast<gzFile>(handle_));
  } else {
    std::fclose(static_cast<std::FILE*>(handle_));
  }
}

std::optional<uint64_t> InputFile::remaining() const {
  if (compression_ == Compression::kGzip) return std::nullopt;
  return size_ > offset_ ? size_ - offset_ : 0;
}

std::string GzipReason(const char* message) {
  if (message == nullptr || *message == '\0') return "corrupt stream";
  std::string_view text(message);
  const size_t colon = text.rfind(": ");
  return std::string(colon == std::string_view::npos ? text : text.substr(colon + 2));
}

Result<size_t> InputFile::RawRead(char* dst, size_t n) {
  if (compression_ == Compression::kNone) {
    auto* f = static_cast<std::FILE*>(handle_);
    size_t got = std::fread(dst, 1, n, f);
    if (got < n && std::ferror(f)) return Error(Code::kDataLoss, "error while reading '{}': {}", path_, std::strerror(errno));
    return got;
  }
  auto gz = static_cast<gzFile>(handle_);
  int got = gzread(gz, dst, static_cast<unsigned>(n));
  int errnum = Z_OK;
  const char* msg = gzerror(gz, &errnum);
  if (got < 0) return Error(Code::kDataLoss, "'{}' is not valid gzip data: {}", path_, GzipReason(msg));
  // A plain file read through zlib comes out unchanged: refuse it, since
  // the reader was told the data is compressed.
  if (!checked_gzip_ && got > 0) {
    checked_gzip_ = true;
    if (gzdirect(gz)) return Error(Code::kDataLoss, "'{}' is not gzip data (the reader has compression=\"gzip\")", path_);
  }
  // zlib reports a stream cut short as a soft error after the short read.
  if (errnum == Z_BUF_ERROR) return Error(Code::kDataLoss, "'{}' is truncated: its gzip stream ends early", path_);
  return static_cast<size_t>(got);
}

Result<bool> InputFile::Refill() {
  if (buffer_pos_ < buffer_.size()) return true;
  buffer_.resize(kBufferSize);
  buffer_pos_ = 0;
  Result<size_t> got = RawRead(buffer_.data(), kBufferSize);
  if (!got.ok()) {
    buffer_.clear();
    return got.status();
  }
  buffer_.resize(*got);
  return *got > 0;
}

Result<size_t> InputFile::ReadAppend(std::string& out, size_t n) {
  size_t total = 0;
  while (total < n) {
    TFG_ASSIGN_OR_RETURN(bool more, Refill());
    if (!more) break;
    size_t k = std::min(n - total, buffer_.size() - buffer_pos_);
    out.append(buffer_, buffer_pos_, k);
    buffer_pos_ += k;
    offset_ += k;
    total += k;
  }
  return total;
}

Result<std::optional<std::string>> InputFile::ReadLine() {
  std::string line;
  bool any = false;
  const uint64_t start = offset_;
  const uint64_t max_bytes = MaxRecordBytes();
  for (;;) {
    TFG_ASSIGN_OR_RETURN(bool more, Refill());
    if (!more) break;
    any = true;
    size_t nl = buffer_.find('\n', buffer_pos_);
    size_t end = nl == std::string::npos ? buffer_.size() : nl;
    // +1: a "\r" before the "\n" is not part of the line.
    if (line.size() + (end - buffer_pos_) > max_bytes + 1) {
      return RecordTooLong(path_, "line", start, line.size() + (end - buffer_pos_));
    }
    line.append(buffer_, buffer_pos_, end - buffer_pos_);
    offset_ += end - buffer_pos_;
    buffer_pos_ = end;
    if (nl != std::string::npos) {
      ++buffer_pos_;
      ++offset_;
      break;
    }
  }
  if (!any) return std::optional<std::string>();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > max_bytes) return RecordTooLong(path_, "line", start, line.size());
  return std::optional<std::string>(std::move(line));
}

}  // namespace tfg::io
