// decode_csv_column(records, record_default, column, num_columns, ...): one
// column of CSV records, as a tensor of the default's dtype. The language's
// decode_csv(records, record_defaults) (interp/language/builtins/builtins_input.cc) makes one
// of these per column: an op has outputs of one dtype each, and the columns
// of a CSV file have several.
#include <charconv>
#include <string_view>

#include "ops/core/op_registry.h"
#include "ops/core/printable.h"

namespace tfg {
namespace {

struct CsvOptions {
  char delim = ',';
  bool use_quotes = true;
  int64_t column = 0;
  int64_t num_columns = 1;
};

// The fields of one record; a quoted field ("a,b" or "say ""hi""") may hold
// the delimiter and doubled quotes.
Result<std::vector<std::string>> SplitRecord(std::string_view record, const CsvOptions& o) {
  std::vector<std::string> fields;
  size_t i = 0;
  for (;;) {
    std::string field;
    if (o.use_quotes && i < record.size() && record[i] == '"') {
      ++i;
      for (;; ++i) {
        if (i >= record.size()) return InvalidArgument("a quoted field is not closed");
        if (record[i] == '"') {
          if (i + 1 < record.size() && record[i + 1] == '"') {
            field.push_back('"');
            ++i;
            continue;
          }
          ++i;
          break;
        }
        field.push_back(record[i]);
      }
      if (i < record.size() && record[i] != o.delim) return InvalidArgument("text after a closing quote");
    } else {
      size_t end = record.find(o.delim, i);
      if (end == std::string_view::npos) end = record.size();
      field.assign(record.substr(i, end - i));
      i = end;
    }
    fields.push_back(std::move(field));
    if (i >= record.size()) break;
    ++i;  // the delimiter
  }
  return fields;
}

template <typename T>
bool ParseNumber(const std::string& s, T& out) {
  const char* begin = s.data();
  if (!s.empty() && s[0] == '+') ++begin;
  auto [end, ec] = std::from_chars(begin, s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && begin != end;
}

// Records come from files: shown escaped, and cut, in messages.
constexpr size_t kShownRecordBytes = 120;

template <typename T>
Status ParseColumn(const Tensor& records, const Tensor& def, const CsvOptions& o, Tensor& out) {
  const std::string* recs = records.data<std::string>();
  T* dst = out.data<T>();
  for (int64_t r = 0; r < records.num_elements(); ++r) {
    Result<std::vector<std::string>> fields = SplitRecord(recs[r], o);
    if (!fields.ok()) return InvalidArgument("decode_csv: record {}: {}: \"{}\"", r, fields.status().message(),
                                                   PrintableBytes(recs[r], kShownRecordBytes));
    if (static_cast<int64_t>(fields->size()) != o.num_columns) {
      return InvalidArgument("decode_csv: record {} has {} field(s), expected {} (one per record default): \"{}\"", r,
                             fields->size(), o.num_columns, PrintableBytes(recs[r], kShownRecordBytes));
    }
    const std::string& field = (*fields)[o.column];
    if (field.empty()) {
      if (def.num_elements() == 0) {
        return InvalidArgument("decode_csv: record {}, column {} is empty and the column has no default", r, o.column);
      }
      dst[r] = def.data<T>()[0];
    } else if constexpr (std::is_same_v<T, std::string>) {
      dst[r] = field;
    } else if (!ParseNumber(field, dst[r])) {
      return InvalidArgument("decode_csv: record {}, column {}: \"{}\" is not a valid {}", r, o.column,
                             PrintableBytes(field),
                             DTypeName(def.dtype()));
    }
  }
  return Status::OK();
}

class DecodeCsvColumnKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const std::string& delim = *c.attr<std::string>("field_delim");
    if (delim.size() != 1) return InvalidArgument("decode_csv: field_delim must be one character, got \"{}\"", delim);
    options_.delim = delim[0];
    options_.use_quotes = *c.attr<bool>("use_quote_delim");
    options_.column = *c.attr<int64_t>("column");
    options_.num_columns = *c.attr<int64_t>("num_columns");
    if (options_.column < 0 || options_.column >= options_.num_columns) {
      return InvalidArgument("decode_csv: column {} is outside [0, {})", options_.column, options_.num_columns);
    }
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& def = ctx.input(1);
    if (def.num_elements() > 1) {
      return InvalidArgument("decode_csv: the default of column {} must hold at most one value, got {}", options_.column,
                             def.DebugString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ctx.input(0).shape()));
    switch (def.dtype()) {
      case DType::kF32: return ParseColumn<float>(ctx.input(0), def, options_, *out);
      case DType::kF64: return ParseColumn<double>(ctx.input(0), def, options_, *out);
      case DType::kI32: return ParseColumn<int32_t>(ctx.input(0), def, options_, *out);
      case DType::kI64: return ParseColumn<int64_t>(ctx.input(0), def, options_, *out);
      case DType::kString: return ParseColumn<std::string>(ctx.input(0), def, options_, *out);
      default: return InvalidArgument("decode_csv: columns of {} are not supported", DTypeName(def.dtype()));
    }
  }

 private:
  CsvOptions options_;
};

Status DecodeCsvColumnShape(ShapeContext& c) {
  const PartialShape& def = c.input(1);
  if (def.known_rank() && def.rank() > 1) {
    return InvalidArgument("the default of column {} must be [] or [value], got shape {}", *c.attr<int64_t>("column"),
                           def.ToString());
  }
  c.set_output(0, c.input(0));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("decode_csv_column")
                    .Input("records", "string")
                    .Input("record_default", "T")
                    .TypeAttr("T", {DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kString})
                    .Attr("column", AttrType::kInt, int64_t{0}, "which field of each record")
                    .Attr("num_columns", AttrType::kInt, int64_t{1}, "fields every record must have")
                    .Attr("field_delim", AttrType::kString, std::string(","), "one character")
                    .Attr("use_quote_delim", AttrType::kBool, true, "\"a,b\" is one field; \"\" inside is a quote")
                    .Output("values", "T")
                    .SetShapeFn(DecodeCsvColumnShape)
                    .NoGradient("strings are not differentiable")
                    .Doc("Column `column` of CSV records, parsed as the default's dtype; an empty field takes the "
                         "default ([value]), or is an error when the default is empty ([]). Every record must "
                         "have num_columns fields. decode_csv(records, record_defaults) is the usual way in: it "
                         "makes one of these per column."));
TFG_REGISTER_KERNEL(KernelDef("decode_csv_column", DeviceType::kCpu).Create<DecodeCsvColumnKernel>());

}  // namespace tfg
