// Builtins of the input pipeline (docs/input.md): write_records, which
// makes the record files record_reader reads, and decode_csv, which splits
// CSV records into one tensor per column (one decode_csv_column op each,
// since an op's outputs cannot differ in dtype).

#include "interp/language/builtins/builtins.h"
#include "interp/language/builtins/path_arg.h"
#include "interp/data/byte_source.h"
#include "interp/language/value_convert.h"
#include "ops/io/record_format.h"

namespace tfg {
namespace {

Result<Value> WriteRecords(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  if (ContainsGraph(args[1])) {
    return Status(Code::kInvalidArgument,
                  fmt::format("write_records: 'records' is {}; give host strings (run(x) fetches them)",
                              Describe(args[1])),
                  args.spans[1]);
  }
  Result<Tensor> records = ToTensor(args[1], DType::kString);
  if (!records.ok()) return Status(records.status()).Prepend("write_records: ").WithSpan(args.spans[1]);
  if (ev.options().check_only) return Value::Int(records->num_elements());
  std::string bytes;
  const std::string* items = records->data<std::string>();
  for (int64_t i = 0; i < records->num_elements(); ++i) io::AppendRecord(bytes, items[i]);
  Status s = data::WriteFileAtomically(path, bytes);
  if (!s.ok()) return s.Prepend("write_records: ").WithSpan(args.span);
  return Value::Int(records->num_elements());
}

// A column's default: a value in a list ([0.0], [""]) as it is, or a dtype
// (bare or in a list, [f32]) for a column without a default (an empty field
// is then an error).
Value ColumnDefault(const Value& d) {
  const Value* dtype = &d;
  if (d.is(ValueKind::kList) && d.as_list().items.size() == 1) dtype = &d.as_list().items[0];
  if (!dtype->is(ValueKind::kDType)) return d;
  return Value::HostTensor(Tensor(HostAllocator(), dtype->as_dtype(), TensorShape{0}));
}

Result<Value> DecodeCsv(BuiltinContext& ev, BoundArgs& args) {
  if (!args[1].is(ValueKind::kList) || args[1].as_list().items.empty()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("decode_csv: 'record_defaults' must be a non-empty list with one default per column "
                              "([[0.0], [0], [\"\"]]; a dtype for a column without one), got {}",
                              Describe(args[1])),
                  args.spans[1]);
  }
  const std::vector<Value> defaults = args[1].as_list().items;
  std::vector<Value> columns;
  for (size_t c = 0; c < defaults.size(); ++c) {
    CallArgs call;
    call.Add(args[0], args.spans[0]);
    call.Add(ColumnDefault(defaults[c]), args.spans[1]);
    call.AddKeyword("column", Value::Int(static_cast<int64_t>(c)), args.span);
    call.AddKeyword("num_columns", Value::Int(static_cast<int64_t>(defaults.size())), args.span);
    call.AddKeyword("field_delim", args[2], args.spans[2]);
    call.AddKeyword("use_quote_delim", args[3], args.spans[3]);
    TFG_ASSIGN_OR_RETURN(Value column, ev.CallOpByName("decode_csv_column", std::move(call), args.span));
    columns.push_back(std::move(column));
  }
  return Value::NewList(std::move(columns));
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kInputBuiltins({
    {"write_records", {Req("path"), Req("records")},
     "Writes a list (or host tensor) of strings as a record file that record_reader reads, each record "
     "checksummed (format: docs/input.md); the file is replaced atomically. Returns the number of records. "
     "Relative paths are relative to the working directory.",
     WriteRecords},
    {"decode_csv",
     {Req("records"), Req("record_defaults"), Opt("field_delim", Value::Str(",")),
      Opt("use_quote_delim", Value::Bool(true))},
     "Splits CSV records (a string tensor) into one tensor per column, of the records' shape: "
     "a, b, c = decode_csv(lines, [[0.0], [0], [\"\"]]). Each column's dtype is its default's; an empty field "
     "takes the default, or is an error when the default is a dtype (decode_csv(lines, [f32, [0]]); [f32] too). "
     "A wrong field count or a malformed number is an error naming the record and column.",
     DecodeCsv},
});

}  // namespace
}  // namespace tfg
