#include "interp/interop/graph_def_io.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace tfg::interop {
namespace {

// Text format starts with a field name (`node {`), a comment or
// whitespace. A binary GraphDef starts with the tag of one of its fields
// (0x0a node, 0x12 library, 0x18 version, 0x22 versions), and 0x0a is also
// a newline: such files are tried as binary first, then as text.
bool LooksLikeText(std::string_view bytes) {
  for (char c : bytes.substr(0, 64)) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '#' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
  return false;
}

bool MaybeBinary(std::string_view bytes) {
  if (bytes.empty() || !LooksLikeText(bytes)) return true;
  char c = bytes[0];
  return c == 0x0a || c == 0x12 || c == 0x18 || c == 0x22;
}

Status NotAGraphDef(const std::string& what, const std::string& text_error) {
  return Status(Code::kInvalidArgument,
                text_error.empty() ? fmt::format("{}: not a GraphDef (neither a binary protobuf nor text format)", what)
                                   : fmt::format("{}: not a GraphDef in text format ({})", what, text_error));
}

// Collects the text parser's complaints instead of letting it log them.
class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first.empty()) first = fmt::format("line {}:{}: {}", line + 1, column + 1, message);
  }
  std::string first;
};

}  // namespace

Result<tf::GraphDef> ParseGraphDef(std::string_view bytes, const std::string& what) {
  tf::GraphDef def;
  if (MaybeBinary(bytes) && bytes.size() < (size_t{1} << 31) &&
      def.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return def;
  }
  if (!LooksLikeText(bytes)) return NotAGraphDef(what, "");
  def.Clear();
  google::protobuf::TextFormat::Parser parser;
  TextErrors errors;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(std::min(bytes.size(), size_t{INT32_MAX})));
  if (bytes.size() > INT32_MAX || !parser.Parse(&in, &def)) return NotAGraphDef(what, errors.first.empty() ? "unreadable" : errors.first);
  return def;
}

Result<tf::GraphDef> ReadGraphDefFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Code::kNotFound, fmt::format("cannot open '{}'", path));
  char head[64];
  in.read(head, sizeof head);
  std::string_view start(head, static_cast<size_t>(in.gcount()));
  if (!MaybeBinary(start) || in.gcount() < static_cast<std::streamsize>(sizeof head)) {
    std::string bytes(start);
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Status(Code::kDataLoss, fmt::format("error reading '{}'", path));
    return ParseGraphDef(bytes, path);
  }
  // A binary file is parsed as it streams in, so the file's bytes are never
  // held twice.
  in.clear();
  in.seekg(0);
  tf::GraphDef def;
  if (def.ParseFromIstream(&in)) return def;
  if (!LooksLikeText(start)) return NotAGraphDef(path, "");
  // A text file that starts with a newline.
  in.clear();
  in.seekg(0);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseGraphDef(bytes, path);
}

Status WriteGraphDefFile(const std::string& path, const tf::GraphDef& def) {
  std::string bytes;
  bool text = path.ends_with(".pbtxt") || path.ends_with(".pbtx");
  if (text ? !google::protobuf::TextFormat::PrintToString(def, &bytes) : !def.SerializeToString(&bytes)) {
    return Status(Code::kInternal, fmt::format("{}: could not serialize the GraphDef", path));
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush()) {
      return Status(Code::kPermissionDenied, fmt::format("cannot write '{}'", path));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(Code::kPermissionDenied, fmt::format("cannot write '{}'", path));
  }
  return Status::OK();
}

}  // namespace tfg::interop
