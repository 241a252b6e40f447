// Data in and out of scripts: load_idx, load_npy, save_npy, load_npz,
// save_npz, load_csv. They
// run at once and return host tensors (feed them, or wrap them in
// constant()). The file formats live in interp/data/, free of interpreter
// types so that in-graph readers can use them too.

#include "interp/language/builtins/builtins.h"
#include "interp/language/builtins/path_arg.h"
#include "interp/data/csv.h"
#include "interp/data/idx.h"
#include "interp/data/npy.h"
#include "interp/data/npz.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

// A reader's error, prefixed with the builtin's name and placed at the call.
Status ReaderError(const BoundArgs& args, Status s) {
  return s.Prepend(args.def->name + ": ").WithSpan(args.span);
}

Result<std::optional<DType>> DTypeArg(const BoundArgs& args, size_t i) {
  if (args[i].is_none()) return std::optional<DType>();
  if (!args[i].is(ValueKind::kDType)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: 'dtype' must be a dtype such as f32, got {}", args.def->name, Describe(args[i])),
                  args.spans[i]);
  }
  DType d = args[i].as_dtype();
  if (d == DType::kString) {
    return Status(Code::kInvalidArgument, args.def->name + ": cannot convert numbers to string", args.spans[i]);
  }
  return std::optional<DType>(d);
}

// The optional dtype= and scale= of the loaders: cast, then multiply. A
// scale without a dtype makes integer data f32 (pixels * (1 / 255)).
Result<Value> Convert(BuiltinContext& ev, const BoundArgs& args, Tensor t, size_t dtype_i, size_t scale_i) {
  TFG_ASSIGN_OR_RETURN(std::optional<DType> dtype, DTypeArg(args, dtype_i));
  std::optional<double> scale;
  if (!args[scale_i].is_none()) {
    TFG_ASSIGN_OR_RETURN(scale, NumberArg(args, scale_i));
    if (dtype && !IsFloat(*dtype)) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}: scale= needs a float dtype, got dtype={}", args.def->name, DTypeName(*dtype)),
                    args.spans[scale_i]);
    }
    if (!dtype && !IsFloat(t.dtype())) dtype = DType::kF32;
  }
  Value v = Value::HostTensor(std::move(t));
  if (dtype && *dtype != v.as_tensor().dtype()) {
    CallArgs cast;
    cast.Add(v, args.span);
    cast.Add(Value::Type(*dtype), args.spans[dtype_i]);
    TFG_ASSIGN_OR_RETURN(v, ev.CallOpByName("cast", std::move(cast), args.span));
  }
  if (!scale) return v;
  return ev.Binary(ast::BinaryOp::kMul, v, Value::Float(*scale), args.span);
}

Result<Value> LoadIdx(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  Result<Tensor> t = data::ReadIdxFile(path);
  if (!t.ok()) return ReaderError(args, t.status());
  return Convert(ev, args, std::move(t).value(), 1, 2);
}

Result<Value> LoadNpy(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  Result<Tensor> t = data::ReadNpyFile(path);
  if (!t.ok()) return ReaderError(args, t.status());
  return Convert(ev, args, std::move(t).value(), 1, 2);
}

Result<Value> SaveNpy(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  if (ContainsGraph(args[1])) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: 'tensor' is {}; save host values (run(x) gives one)", args.def->name,
                              Describe(args[1])),
                  args.spans[1]);
  }
  Result<Tensor> t = ToTensor(args[1]);
  if (!t.ok()) return Status(t.status()).Prepend(args.def->name + ": ").WithSpan(args.spans[1]);
  if (ev.options().check_only) return Value();
  Status s = data::WriteNpyFile(path, *t);
  if (!s.ok()) return ReaderError(args, s);
  return Value();
}

// load_npz: a dict {name: host tensor} in the archive's order, as np.load
// gives an NpzFile keyed by name.
Result<Value> LoadNpz(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  Result<data::NamedArrays> arrays = data::ReadNpzFile(path);
  if (!arrays.ok()) return ReaderError(args, arrays.status());
  Value dict = Value::NewDict();
  for (auto& [name, tensor] : *arrays) {
    TFG_RETURN_IF_ERROR(dict.as_dict().Set(Value::Str(name), Value::HostTensor(std::move(tensor))));
  }
  return dict;
}

Result<Value> SaveNpz(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  if (!args[1].is(ValueKind::kDict)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: 'arrays' must be a dict {{name: host tensor}}, got {}", args.def->name,
                              Describe(args[1])),
                  args.spans[1]);
  }
  TFG_ASSIGN_OR_RETURN(bool compressed, BoolArg(args, 2));
  data::NamedArrays arrays;
  for (const auto& [key, item] : args[1].as_dict().entries()) {
    if (!key.is(ValueKind::kString) || key.as_string().empty()) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}: the keys of 'arrays' are the names in the archive (non-empty strings), got {}",
                                args.def->name, Describe(key)),
                    args.spans[1]);
    }
    if (ContainsGraph(item)) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}: '{}' is {}; save host values (run(x) gives one)", args.def->name,
                                key.as_string(), Describe(item)),
                    args.spans[1]);
    }
    Result<Tensor> t = ToTensor(item);
    if (!t.ok()) return Status(t.status()).Prepend(fmt::format("{}: '{}': ", args.def->name, key.as_string())).WithSpan(args.spans[1]);
    arrays.emplace_back(key.as_string(), std::move(t).value());
  }
  if (ev.options().check_only) return Value();
  Status s = data::WriteNpzFile(path, arrays, compressed);
  if (!s.ok()) return ReaderError(args, s);
  return Value();
}

Result<Value> LoadCsv(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string path, PathArg(args, 0));
  data::CsvOptions options;
  if (!args[1].is(ValueKind::kDType)) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: 'dtype' must be a dtype such as f32, got {}", args.def->name, Describe(args[1])),
                  args.spans[1]);
  }
  options.dtype = args[1].as_dtype();
  TFG_ASSIGN_OR_RETURN(options.skip_header, BoolArg(args, 2));
  TFG_ASSIGN_OR_RETURN(std::string delimiter, StringArg(args, 3));
  if (delimiter.size() != 1) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{}: the delimiter must be one character, got \"{}\"", args.def->name, delimiter),
                  args.spans[3]);
  }
  options.delimiter = delimiter[0];
  Result<Tensor> t = data::ReadCsvFile(path, options);
  if (!t.ok()) return ReaderError(args, t.status());
  return Value::HostTensor(std::move(t).value());
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kDataBuiltins({
    {"load_idx", {Req("path"), Opt("dtype", Value()), Opt("scale", Value())},
     "Reads an IDX file (MNIST, Fashion-MNIST; gzipped or not) into a host tensor: u8/i8/i16/i32 data as i32, "
     "f32 and f64 as they are. dtype= converts (cast), scale= multiplies (integer data becomes f32): "
     "load_idx(\"train-images-idx3-ubyte.gz\", scale=1/255). Relative paths are relative to the working directory.",
     LoadIdx},
    {"load_npy", {Req("path"), Opt("dtype", Value()), Opt("scale", Value())},
     "Reads a NumPy .npy file into a host tensor (f16 f32 f64 i32 i64 bool; narrower integers as i32, u32/u64 "
     "as i64; 'S' and 'U' strings as string; Fortran order and big-endian files are converted). dtype= and scale= as in load_idx.",
     LoadNpy},
    {"save_npy", {Req("path"), Req("tensor")},
     "Writes a host tensor (or host data) as a NumPy .npy file that np.load reads (strings as '<U', or '|S' "
     "when one is not UTF-8); the file is replaced atomically. Writes nothing in check mode.",
     SaveNpy},
    {"load_npz", {Req("path")},
     "Reads a NumPy .npz archive (np.savez, np.savez_compressed) into a dict {name: host tensor}, in the "
     "archive's order; each array as load_npy reads it.",
     LoadNpz},
    {"save_npz", {Req("path"), Req("arrays"), Opt("compressed", Value::Bool(true))},
     "Writes a dict {name: host tensor} as a NumPy .npz archive that np.load reads: deflated as "
     "np.savez_compressed does, or stored as np.savez does with compressed=false. Replaced atomically; "
     "writes nothing in check mode.",
     SaveNpz},
    {"load_csv",
     {Req("path"), Opt("dtype", Value::Type(DType::kF32)), Opt("skip_header", Value::Bool(false)),
      Opt("delimiter", Value::Str(","))},
     "Reads a CSV file into a 2-D host tensor [rows, columns] of dtype (f32 unless told; string keeps the "
     "text). Quoted fields are allowed; a ragged row, an empty field or a non-number is an error naming its "
     "line and field.",
     LoadCsv},
});

}  // namespace
}  // namespace tfg
