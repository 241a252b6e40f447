// tf.train.Example parsing for scripts: fixed_len_feature and
// var_len_feature describe a feature (tf.io.FixedLenFeature,
// tf.io.VarLenFeature), and parse_example / parse_single_example build one
// parse_example_feature op per feature (ops/io/parse_example.cc) and return
// a dict {name: tensor}. A variable-length feature comes back dense,
// padded with 0 or "" to the longest record, with its per-record lengths
// under "<name>/lengths" (TensorFlow gives a SparseTensor; tfg has none).
#include "interp/language/builtins/builtins.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

constexpr const char* kKind = "kind";

Status Fail(const BoundArgs& args, size_t param, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.spans[param]);
}

Result<DType> FeatureDType(const BoundArgs& args, size_t i) {
  const Value& v = args[i];
  if (!v.is(ValueKind::kDType) ||
      (v.as_dtype() != DType::kI64 && v.as_dtype() != DType::kF32 && v.as_dtype() != DType::kString)) {
    return Fail(args, i, "dtype must be i64, f32 or string (Example lists hold int64, float or bytes), got " +
                             Describe(v));
  }
  return v.as_dtype();
}

Result<Value> Spec(std::vector<std::pair<std::string, Value>> fields) {
  Value dict = Value::NewDict();
  for (auto& [k, v] : fields) TFG_RETURN_IF_ERROR(dict.as_dict().Set(Value::Str(k), std::move(v)));
  return dict;
}

Result<Value> FixedLenFeature(BuiltinContext&, BoundArgs& args) {
  if (!args[0].is(ValueKind::kList)) return Fail(args, 0, "shape must be a list of ints ([] for one value), got " + Describe(args[0]));
  TFG_ASSIGN_OR_RETURN(DType dtype, FeatureDType(args, 1));
  Tensor def(HostAllocator(), dtype, TensorShape{0});  // none: the feature is required
  if (!args[2].is_none()) {
    if (ContainsGraph(args[2])) return Fail(args, 2, "default_value must be a host value, got " + Describe(args[2]));
    auto t = ToTensor(args[2], dtype);
    if (!t.ok()) return Status(t.status()).Prepend(args.def->name + "(): default_value: ").WithSpan(args.spans[2]);
    def = std::move(t).value();
  }
  return Spec({{kKind, Value::Str("fixed_len")}, {"shape", args[0]}, {"dtype", args[1]},
               {"default_value", Value::HostTensor(std::move(def))}});
}

Result<Value> VarLenFeature(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(DType dtype, FeatureDType(args, 0));
  (void)dtype;
  return Spec({{kKind, Value::Str("var_len")}, {"dtype", args[0]}});
}

// The spec's field `name`, or an error naming the feature.
Result<Value> SpecField(const BoundArgs& args, const std::string& feature, const Value& spec, const char* name) {
  const Value* v = spec.is(ValueKind::kDict) ? spec.as_dict().Find(Value::Str(name)) : nullptr;
  if (v == nullptr) {
    return Fail(args, 1, fmt::format("feature '{}' must be described by fixed_len_feature(...) or "
                                     "var_len_feature(...), got {}",
                                     feature, Describe(spec)));
  }
  return *v;
}

// parse_single_example takes one record: a scalar (as far as its static
// shape tells).
Status CheckOneRecord(const BoundArgs& args) {
  const Value& v = args[0];
  int rank = -1;
  if (v.is(ValueKind::kTensor)) rank = v.as_tensor().rank();
  if (v.is(ValueKind::kGraphTensor) || v.is(ValueKind::kVariable)) rank = v.graph_output().shape().rank();
  if (v.is(ValueKind::kList)) rank = 1;
  if (rank > 0) {
    return Fail(args, 0, fmt::format("serialized must be one record (a scalar string), got rank {}; use "
                                     "parse_example for a batch",
                                     rank));
  }
  return Status::OK();
}

Result<Value> ParseFeatures(BuiltinContext& ev, BoundArgs& args, bool single) {
  if (!args[1].is(ValueKind::kDict) || args[1].as_dict().size() == 0) {
    return Fail(args, 1, "features must be a non-empty dict {name: fixed_len_feature(...) or var_len_feature(...)}, "
                         "got " + Describe(args[1]));
  }
  if (single) TFG_RETURN_IF_ERROR(CheckOneRecord(args));
  Value out = Value::NewDict();
  for (const auto& [key, spec] : args[1].as_dict().entries()) {
    if (!key.is(ValueKind::kString) || key.as_string().empty()) {
      return Fail(args, 1, "the keys of features are the features' names (non-empty strings), got " + Describe(key));
    }
    const std::string& name = key.as_string();
    TFG_ASSIGN_OR_RETURN(Value kind, SpecField(args, name, spec, kKind));
    TFG_ASSIGN_OR_RETURN(Value dtype, SpecField(args, name, spec, "dtype"));
    const bool var_len = kind.is(ValueKind::kString) && kind.as_string() == "var_len";
    CallArgs call;
    call.Add(args[0], args.spans[0]);
    if (var_len) {
      call.Add(Value::HostTensor(Tensor(HostAllocator(), dtype.as_dtype(), TensorShape{0})), args.spans[1]);
      call.AddKeyword("var_len", Value::Bool(true), args.spans[1]);
    } else {
      TFG_ASSIGN_OR_RETURN(Value def, SpecField(args, name, spec, "default_value"));
      TFG_ASSIGN_OR_RETURN(Value shape, SpecField(args, name, spec, "shape"));
      call.Add(def, args.spans[1]);
      call.AddKeyword("shape", shape, args.spans[1]);
    }
    call.AddKeyword("key", Value::Str(name), args.spans[1]);
    TFG_ASSIGN_OR_RETURN(Value parsed, ev.CallOpByName("parse_example_feature", std::move(call), args.span));
    if (!parsed.is(ValueKind::kList) || parsed.as_list().items.size() != 2) {
      return Status(Code::kInternal, "parse_example_feature did not give (values, lengths)", args.span);
    }
    const Value& values = parsed.as_list().items[0];
    TFG_RETURN_IF_ERROR(out.as_dict().Set(key, values));
    if (var_len) {
      const std::string lengths = name + "/lengths";
      if (args[1].as_dict().Find(Value::Str(lengths)) != nullptr) {
        return Fail(args, 1, fmt::format("feature '{}' and the lengths of var-len feature '{}' would share a key",
                                         lengths, name));
      }
      TFG_RETURN_IF_ERROR(out.as_dict().Set(Value::Str(lengths), parsed.as_list().items[1]));
    }
  }
  return out;
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }

const BuiltinRegistrar kExampleBuiltins({
    {"fixed_len_feature", {Req("shape"), Req("dtype"), Opt("default_value", Value())},
     "Describes a fixed-length feature of tf.train.Example records for parse_example (tf.io.FixedLenFeature): "
     "shape per record ([] for one value), dtype i64, f32 or string, and the value a record without it takes "
     "(one value or shape's; none: the feature is required).",
     FixedLenFeature},
    {"var_len_feature", {Req("dtype")},
     "Describes a variable-length feature for parse_example (tf.io.VarLenFeature): it comes back dense, padded "
     "with 0 or \"\" to the longest record, with each record's length under \"<name>/lengths\".",
     VarLenFeature},
    {"parse_example", {Req("serialized"), Req("features")},
     "Parses a vector of serialized tf.train.Example records (a host or graph string tensor, as record_reader "
     "reads them) into a dict {name: tensor}: a fixed_len_feature as [batch] + shape, a var_len_feature as "
     "[batch, longest] padded, plus \"<name>/lengths\" [batch]. See docs/input.md.",
     [](BuiltinContext& ev, BoundArgs& a) { return ParseFeatures(ev, a, false); }},
    {"parse_single_example", {Req("serialized"), Req("features")},
     "parse_example for one record (a scalar string): fixed_len_feature values have the feature's shape, "
     "var_len_feature values are a vector and their \"<name>/lengths\" a scalar.",
     [](BuiltinContext& ev, BoundArgs& a) { return ParseFeatures(ev, a, true); }},
});

}  // namespace
}  // namespace tfg
