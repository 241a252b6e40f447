// record_reader(compression): a reader of record files (record_format.h),
// as write_records writes them; every record is checksummed.
#include "ops/io/reader_state.h"
#include "ops/io/record_format.h"

namespace tfg::io {
namespace {

class RecordFileSource : public RecordSource {
 public:
  explicit RecordFileSource(Compression compression) : compression_(compression) {}

  Status Open(const std::string& path) override {
    file_.reset();
    TFG_ASSIGN_OR_RETURN(file_, InputFile::Open(path, compression_));
    return Status::OK();
  }

  Result<std::optional<std::string>> Next() override {
    if (!file_) return std::optional<std::string>();
    Result<std::optional<std::string>> record = ReadRecord(*file_);
    if (!record.ok() || !record->has_value()) file_.reset();
    return record;
  }

 private:
  Compression compression_;
  std::unique_ptr<InputFile> file_;
};

Result<SourceMaker> MakeRecordMaker(const KernelConstruction&, Compression compression) {
  return SourceMaker([=] { return MakeRecordFileSource(compression); });
}

OpDefBuilder RecordReaderOp() {
  OpDefBuilder b("record_reader");
  AddReaderCommon(b).Doc(
      "A reader of record files (as write_records writes them; the format is in docs/input.md). A corrupt or "
      "truncated record is a DataLoss error naming the file and the record's offset. Outputs a handle for "
      "read(reader, filename_queue); keys are \"file:index\", counting records from 0.");
  return b;
}

}  // namespace

std::unique_ptr<RecordSource> MakeRecordFileSource(Compression compression) {
  return std::make_unique<RecordFileSource>(compression);
}

TFG_REGISTER_OP(RecordReaderOp());
TFG_REGISTER_KERNEL(KernelDef("record_reader", DeviceType::kCpu).Factory(ReaderKernelFactory(MakeRecordMaker)));

}  // namespace tfg::io
