#include "interp/data/csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <vector>

#include "interp/data/byte_source.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/printable.h"

namespace tfg::data {
namespace {

struct Field {
  std::string text;
  int line = 0;
};

// Splits CSV text into records of fields, quotes removed.
class Scanner {
 public:
  Scanner(std::string_view text, char delim, const std::string& name) : t_(text), delim_(delim), name_(name) {}

  // The next record that is not a blank line; false at the end of the text.
  Result<bool> Next(std::vector<Field>& fields) {
    fields.clear();
    if (!SkipBlankLines()) return false;
    for (;;) {
      Field f;
      f.line = line_;
      TFG_RETURN_IF_ERROR(ScanField(f, fields.size() + 1));
      fields.push_back(std::move(f));
      if (pos_ < t_.size() && t_[pos_] == delim_) {
        ++pos_;
        continue;
      }
      if (pos_ < t_.size() && t_[pos_] == '\r') ++pos_;
      if (pos_ < t_.size() && t_[pos_] == '\n') {
        ++pos_;
        ++line_;
      }
      return true;
    }
  }

 private:
  bool IsSpace(char c) const { return c != delim_ && (c == ' ' || c == '\t' || c == '\r'); }

  bool SkipBlankLines() {
    while (pos_ < t_.size()) {
      size_t e = pos_;
      while (e < t_.size() && IsSpace(t_[e])) ++e;
      if (e == t_.size()) pos_ = e;
      if (e == t_.size() || t_[e] != '\n') break;
      pos_ = e + 1;
      ++line_;
    }
    return pos_ < t_.size();
  }

  Status ScanField(Field& f, size_t index) {
    size_t p = pos_;
    while (p < t_.size() && IsSpace(t_[p])) ++p;
    if (p < t_.size() && t_[p] == '"') {
      pos_ = p + 1;
      return ScanQuoted(f, index);
    }
    size_t e = pos_;
    while (e < t_.size() && t_[e] != delim_ && t_[e] != '\n') ++e;
    size_t end = e;
    if (end > pos_ && t_[end - 1] == '\r' && (e == t_.size() || t_[e] == '\n')) --end;
    f.text = std::string(t_.substr(pos_, end - pos_));
    pos_ = e;
    return Status::OK();
  }

  Status ScanQuoted(Field& f, size_t index) {
    for (;;) {
      if (pos_ >= t_.size()) {
        return Error(Code::kInvalidArgument, "'{}' line {}, field {}: the quoted field is never closed", name_, f.line,
                     index);
      }
      char c = t_[pos_++];
      if (c == '"') {
        if (pos_ < t_.size() && t_[pos_] == '"') {
          f.text += '"';
          ++pos_;
          continue;
        }
        break;
      }
      if (c == '\n') ++line_;
      f.text += c;
    }
    while (pos_ < t_.size() && IsSpace(t_[pos_])) ++pos_;
    if (pos_ < t_.size() && t_[pos_] != delim_ && t_[pos_] != '\n') {
      return Error(Code::kInvalidArgument, "'{}' line {}, field {}: unexpected '{}' after the closing quote", name_,
                   line_, index, PrintableBytes(t_.substr(pos_, 1)));
    }
    return Status::OK();
  }

  std::string_view t_;
  char delim_;
  const std::string& name_;
  size_t pos_ = 0;
  int line_ = 1;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The parsed values, in one of three forms by dtype.
struct Values {
  std::vector<double> floats;
  std::vector<int64_t> ints;  // also bools
  std::vector<std::string> strings;
};

class Converter {
 public:
  Converter(const std::string& name, DType dtype) : name_(name), dtype_(dtype) {}

  Status Add(const Field& f, size_t col, Values& out) const {
    if (dtype_ == DType::kString) {
      out.strings.push_back(f.text);
      return Status::OK();
    }
    std::string_view s = Trim(f.text);
    if (s.empty()) return Error(Code::kInvalidArgument, "'{}' line {}, field {} is empty", name_, f.line, col);
    if (IsFloat(dtype_)) {
      TFG_ASSIGN_OR_RETURN(double d, Float(f, col, s));
      out.floats.push_back(d);
    } else if (dtype_ == DType::kBool) {
      TFG_ASSIGN_OR_RETURN(bool b, Bool(f, col, s));
      out.ints.push_back(b);
    } else {
      TFG_ASSIGN_OR_RETURN(int64_t i, Int(f, col, s));
      out.ints.push_back(i);
    }
    return Status::OK();
  }

 private:
  Status Fail(const Field& f, size_t col, const std::string& what) const {
    return Error(Code::kInvalidArgument, "'{}' line {}, field {}: {}", name_, f.line, col, what);
  }

  Result<double> Float(const Field& f, size_t col, std::string_view s) const {
    std::string_view body = s.front() == '+' && s.size() > 1 && s[1] != '-' ? s.substr(1) : s;
    double d = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), d);
    if (ec != std::errc::result_out_of_range && (ec != std::errc() || end != body.data() + body.size())) {
      return Fail(f, col, fmt::format("'{}' is not a number", PrintableBytes(s)));
    }
    // from_chars reports underflow too; strtod tells it (a tiny value) from
    // overflow (HUGE_VAL).
    if (ec == std::errc::result_out_of_range) {
      d = std::strtod(std::string(body).c_str(), nullptr);
      if (std::fabs(d) != HUGE_VAL) ec = std::errc();
    }
    const double limit = dtype_ == DType::kF16   ? 65504.0
                         : dtype_ == DType::kF32 ? std::numeric_limits<float>::max()
                                                 : std::numeric_limits<double>::max();
    if (ec == std::errc::result_out_of_range || (std::isfinite(d) && std::fabs(d) > limit)) {
      return Fail(f, col, fmt::format("'{}' is out of range for {}", PrintableBytes(s), DTypeName(dtype_)));
    }
    return d;
  }

  Result<int64_t> Int(const Field& f, size_t col, std::string_view s) const {
    std::string_view body = s.front() == '+' && s.size() > 1 && s[1] != '-' ? s.substr(1) : s;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    bool fits = ec == std::errc() && (dtype_ == DType::kI64 || (v >= INT32_MIN && v <= INT32_MAX));
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && end == body.data() + body.size() && !fits)) {
      return Fail(f, col, fmt::format("'{}' is out of range for {}", PrintableBytes(s), DTypeName(dtype_)));
    }
    if (ec != std::errc() || end != body.data() + body.size()) {
      return Fail(f, col, fmt::format("'{}' is not an integer", PrintableBytes(s)));
    }
    return v;
  }

  Result<bool> Bool(const Field& f, size_t col, std::string_view s) const {
    if (s == "1" || s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "0" || s == "false" || s == "False" || s == "FALSE") return false;
    return Fail(f, col, fmt::format("'{}' is not a bool (true, false, 1 or 0)", PrintableBytes(s)));
  }

  const std::string& name_;
  DType dtype_;
};

Result<Tensor> ToTensor(Values& v, DType dtype, int64_t rows, int64_t cols) {
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), dtype, TensorShape({rows, cols})));
  const int64_t n = rows * cols;
  switch (dtype) {
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) t.data<half>()[i] = static_cast<half>(static_cast<float>(v.floats[i]));
      break;
    case DType::kF32:
      for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(v.floats[i]);
      break;
    case DType::kF64: std::copy(v.floats.begin(), v.floats.end(), t.data<double>()); break;
    case DType::kI32:
      for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = static_cast<int32_t>(v.ints[i]);
      break;
    case DType::kI64: std::copy(v.ints.begin(), v.ints.end(), t.data<int64_t>()); break;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = v.ints[i] != 0;
      break;
    default:
      for (int64_t i = 0; i < n; ++i) t.data<std::string>()[i] = std::move(v.strings[i]);
      break;
  }
  return t;
}

Status CheckOptions(const CsvOptions& o) {
  if (o.delimiter == '"' || o.delimiter == '\n' || o.delimiter == '\r') {
    return InvalidArgument("the delimiter cannot be a quote or a line break");
  }
  if (o.dtype == DType::kInvalid) return InvalidArgument("no dtype given");
  return Status::OK();
}

}  // namespace

// A field of the first row that is not a number (nor bool) and has a
// letter in it is most likely a column name: the file has a header the call
// did not skip.
static bool LooksLikeAName(std::string_view field, const Status& failure) {
  return failure.message().find(" is not a") != std::string::npos &&
         std::any_of(field.begin(), field.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

Result<Tensor> ParseCsv(std::string_view text, const std::string& name, const CsvOptions& options) {
  TFG_RETURN_IF_ERROR(CheckOptions(options));
  Scanner scanner(text, options.delimiter, name);
  Converter convert(name, options.dtype);
  Values values;
  std::vector<Field> fields;
  int64_t rows = 0;
  size_t cols = 0;
  int first_line = 0;
  bool header_pending = options.skip_header;
  try {
    for (;;) {
      TFG_ASSIGN_OR_RETURN(bool more, scanner.Next(fields));
      if (!more) break;
      if (header_pending) {
        header_pending = false;
        continue;
      }
      if (rows == 0) {
        cols = fields.size();
        first_line = fields[0].line;
      } else if (fields.size() != cols) {
        return Error(Code::kInvalidArgument, "'{}' line {} has {} fields, expected {} like line {}", name,
                     fields[0].line, fields.size(), cols, first_line);
      }
      for (size_t j = 0; j < fields.size(); ++j) {
        Status added = convert.Add(fields[j], j + 1, values);
        if (!added.ok() && rows == 0 && !options.skip_header && LooksLikeAName(fields[j].text, added)) {
          return Status(added.code(), added.message() + "; if the first line is a header, pass skip_header=true");
        }
        TFG_RETURN_IF_ERROR(added);
      }
      ++rows;
    }
  } catch (const std::bad_alloc&) {
    return Error(Code::kResourceExhausted, "'{}' does not fit in memory", name);
  }
  if (rows == 0) {
    return Error(Code::kInvalidArgument, "'{}' has no rows{}", name, options.skip_header ? " after the header" : "");
  }
  return ToTensor(values, options.dtype, rows, static_cast<int64_t>(cols));
}

Result<Tensor> ReadCsvFile(const std::string& path, const CsvOptions& options) {
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src, OpenFile(path));
  TFG_ASSIGN_OR_RETURN(std::string text, src->ReadRest());
  if (src->truncated()) return Error(Code::kDataLoss, "'{}' is truncated: the gzip stream ends early", path);
  return ParseCsv(text, path, options);
}

}  // namespace tfg::data
