// fixed_length_record_reader(record_bytes, header_bytes, footer_bytes,
// compression): a reader whose records are the record_bytes-long pieces of
// each file between a header and a footer that are skipped.
#include "ops/io/reader_state.h"

namespace tfg::io {
namespace {

class FixedLengthSource : public RecordSource {
 public:
  FixedLengthSource(Compression compression, int64_t record_bytes, int64_t header_bytes, int64_t footer_bytes)
      : compression_(compression), record_(record_bytes), header_(header_bytes), footer_(footer_bytes) {}

  Status Open(const std::string& path) override {
    file_.reset();
    ahead_.clear();
    TFG_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> file, InputFile::Open(path, compression_));
    // An uncompressed file's size is known: refuse a bad one before any record.
    if (std::optional<uint64_t> size = file->remaining()) TFG_RETURN_IF_ERROR(CheckSize(path, *size));
    std::string header;
    TFG_ASSIGN_OR_RETURN(size_t got, file->ReadAppend(header, header_));
    if (got < header_) return SizeError(path, got, "is shorter than header_bytes + footer_bytes");
    file_ = std::move(file);
    return Status::OK();
  }

  // Reads one record ahead of what it hands out plus the footer, so the
  // end of a compressed file (whose size is unknown) is found by running out.
  Result<std::optional<std::string>> Next() override {
    if (!file_) return std::optional<std::string>();
    const size_t want = record_ + footer_;
    if (ahead_.size() < want) TFG_RETURN_IF_ERROR(file_->ReadAppend(ahead_, want - ahead_.size()).status());
    if (ahead_.size() < want) {
      std::string path = file_->path();
      uint64_t offset = file_->offset();
      size_t left = ahead_.size();
      file_.reset();
      if (left == footer_) return std::optional<std::string>();
      return SizeError(path, offset, fmt::format("leaves {} bytes before the footer, not a whole record",
                                                 left < footer_ ? 0 : left - footer_));
    }
    std::string record = ahead_.substr(0, record_);
    ahead_.erase(0, record_);
    return std::optional<std::string>(std::move(record));
  }

 private:
  Status CheckSize(const std::string& path, uint64_t size) const {
    if (size < header_ + footer_) return SizeError(path, size, "is shorter than header_bytes + footer_bytes");
    if ((size - header_ - footer_) % record_ != 0) {
      return SizeError(path, size, fmt::format("does not fit: {} bytes between header and footer is not a multiple "
                                               "of record_bytes",
                                               size - header_ - footer_));
    }
    return Status::OK();
  }
  Status SizeError(const std::string& path, uint64_t size, const std::string& what) const {
    return InvalidArgument("'{}' ({} bytes) {} (record_bytes={}, header_bytes={}, footer_bytes={})", path, size,
                           what, record_, header_, footer_);
  }

  Compression compression_;
  size_t record_, header_, footer_;
  std::unique_ptr<InputFile> file_;
  std::string ahead_;
};

Result<SourceMaker> MakeFixedLengthMaker(const KernelConstruction& c, Compression compression) {
  int64_t record = *c.attr<int64_t>("record_bytes");
  int64_t header = *c.attr<int64_t>("header_bytes");
  int64_t footer = *c.attr<int64_t>("footer_bytes");
  if (record <= 0) return InvalidArgument("record_bytes must be positive, got {}", record);
  if (header < 0 || footer < 0) {
    return InvalidArgument("header_bytes and footer_bytes must be >= 0, got {} and {}", header, footer);
  }
  // Each piece is held in memory whole (header, then record and footer).
  const uint64_t cap = MaxRecordBytes();
  if (static_cast<uint64_t>(header) > cap || static_cast<uint64_t>(record) > cap ||
      static_cast<uint64_t>(footer) > cap - static_cast<uint64_t>(record)) {
    return InvalidArgument("header_bytes ({}) and record_bytes + footer_bytes ({} + {}) must each be at most {} bytes, "
                           "the most a reader takes at once (256 MiB, or --memory-limit when smaller)",
                           header, record, footer, cap);
  }
  return SourceMaker([=] { return MakeFixedLengthSource(compression, record, header, footer); });
}

OpDefBuilder FixedLengthRecordReaderOp() {
  OpDefBuilder b("fixed_length_record_reader");
  b.Attr("record_bytes", AttrType::kInt, std::nullopt, "bytes per record")
      .Attr("header_bytes", AttrType::kInt, int64_t{0}, "bytes skipped at the start of each file")
      .Attr("footer_bytes", AttrType::kInt, int64_t{0}, "bytes skipped at the end of each file");
  AddReaderCommon(b).Doc(
      "A reader whose records are the record_bytes-long pieces of each file after header_bytes and before "
      "footer_bytes. A file whose middle is not a whole number of records is an error. Outputs a handle for "
      "read(reader, filename_queue); keys are \"file:index\", counting records from 0.");
  return b;
}

}  // namespace

std::unique_ptr<RecordSource> MakeFixedLengthSource(Compression compression, int64_t record_bytes,
                                                    int64_t header_bytes, int64_t footer_bytes) {
  return std::make_unique<FixedLengthSource>(compression, record_bytes, header_bytes, footer_bytes);
}

TFG_REGISTER_OP(FixedLengthRecordReaderOp());
TFG_REGISTER_KERNEL(
    KernelDef("fixed_length_record_reader", DeviceType::kCpu).Factory(ReaderKernelFactory(MakeFixedLengthMaker)));

}  // namespace tfg::io
