// text_line_reader(skip_header_lines, compression): a reader whose records
// are the lines of its files, without their "\n" or "\r\n".
#include "ops/io/reader_state.h"

namespace tfg::io {
namespace {

class TextLineSource : public RecordSource {
 public:
  TextLineSource(Compression compression, int64_t skip_header_lines)
      : compression_(compression), skip_header_lines_(skip_header_lines) {}

  Status Open(const std::string& path) override {
    file_.reset();
    TFG_ASSIGN_OR_RETURN(file_, InputFile::Open(path, compression_));
    for (int64_t i = 0; i < skip_header_lines_; ++i) {
      TFG_ASSIGN_OR_RETURN(std::optional<std::string> line, file_->ReadLine());
      if (!line) break;
    }
    return Status::OK();
  }

  Result<std::optional<std::string>> Next() override {
    if (!file_) return std::optional<std::string>();
    TFG_ASSIGN_OR_RETURN(std::optional<std::string> line, file_->ReadLine());
    if (!line) file_.reset();
    return line;
  }

 private:
  Compression compression_;
  int64_t skip_header_lines_;
  std::unique_ptr<InputFile> file_;
};

Result<SourceMaker> MakeTextLineMaker(const KernelConstruction& c, Compression compression) {
  const int64_t* skip = c.attr<int64_t>("skip_header_lines");
  int64_t skip_lines = skip ? *skip : 0;
  if (skip_lines < 0) return InvalidArgument("skip_header_lines must be >= 0, got {}", skip_lines);
  return SourceMaker([=] { return MakeTextLineSource(compression, skip_lines); });
}

OpDefBuilder TextLineReaderOp() {
  OpDefBuilder b("text_line_reader");
  b.Attr("skip_header_lines", AttrType::kInt, int64_t{0}, "lines skipped at the start of each file");
  AddReaderCommon(b).Doc(
      "A reader whose records are the lines of its files (without \"\\n\" or \"\\r\\n\"; a last line without a "
      "newline counts). Outputs a handle for read(reader, filename_queue); keys are \"file:index\", the index "
      "counting lines after the skipped header from 0. A line longer than 256 MiB (or --memory-limit when "
      "smaller) is a ResourceExhausted error naming the file.");
  return b;
}

}  // namespace

std::unique_ptr<RecordSource> MakeTextLineSource(Compression compression, int64_t skip_header_lines) {
  return std::make_unique<TextLineSource>(compression, skip_header_lines);
}

TFG_REGISTER_OP(TextLineReaderOp());
TFG_REGISTER_KERNEL(KernelDef("text_line_reader", DeviceType::kCpu).Factory(ReaderKernelFactory(MakeTextLineMaker)));

}  // namespace tfg::io
