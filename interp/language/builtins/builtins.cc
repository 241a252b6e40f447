#include "interp/language/builtins/builtins.h"

#include <algorithm>

#include "interp/language/value_convert.h"
#include "ops/core/op_registry.h"

namespace tfg {

BuiltinRegistry& BuiltinRegistry::Global() {
  static BuiltinRegistry* registry = new BuiltinRegistry();  // used by static registrars; never destroyed
  return *registry;
}

void BuiltinRegistry::Register(BuiltinDef def) {
  for (auto& d : defs_) {
    if (d->name == def.name) {
      *d = std::move(def);
      return;
    }
  }
  defs_.push_back(std::make_unique<BuiltinDef>(std::move(def)));
}

const BuiltinDef* BuiltinRegistry::Find(const std::string& name) const {
  for (const auto& d : defs_) {
    if (d->name == name) return d.get();
  }
  return nullptr;
}

std::vector<const BuiltinDef*> BuiltinRegistry::List() const {
  std::vector<const BuiltinDef*> out;
  for (const auto& d : defs_) out.push_back(d.get());
  std::sort(out.begin(), out.end(), [](const BuiltinDef* a, const BuiltinDef* b) { return a->name < b->name; });
  return out;
}

std::string BuiltinSignature(const BuiltinDef& def) {
  std::string out = def.name + "(";
  bool first = true;
  bool variadic_shown = false;
  for (const BuiltinParam& p : def.params) {
    if (def.variadic && p.keyword_only && !variadic_shown) {
      out += first ? "values..." : ", values...";
      variadic_shown = true;
      first = false;
    }
    if (!first) out += ", ";
    first = false;
    out += p.name;
    if (p.default_value) {
      out += "=";
      out += Repr(*p.default_value);
    }
  }
  if (def.variadic && !variadic_shown) out += first ? "values..." : ", values...";
  return out + ")";
}

std::string BuiltinReference() {
  std::string out = "| builtin | what it does |\n|---|---|\n";
  for (const BuiltinDef* def : BuiltinRegistry::Global().List()) {
    std::string doc = def->doc;
    for (size_t pos = 0; (pos = doc.find('|', pos)) != std::string::npos; pos += 2) doc.replace(pos, 1, "\\|");
    out += "| `" + BuiltinSignature(*def) + "` | " + doc + " |\n";
  }
  return out;
}

namespace {

std::string ParamList(const BuiltinDef& def) {
  std::string out;
  for (const BuiltinParam& p : def.params) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

Status BindKeywords(const BuiltinDef& def, CallArgs& args, BoundArgs& bound) {
  for (size_t k = 0; k < args.keywords.size(); ++k) {
    const auto& [name, value] = args.keywords[k];
    SourceSpan span = k < args.keyword_spans.size() ? args.keyword_spans[k] : bound.span;
    auto it = std::find_if(def.params.begin(), def.params.end(),
                           [&, &n = name](const BuiltinParam& p) { return p.name == n; });
    if (it == def.params.end()) {
      if (def.open_keywords) continue;
      return Status(Code::kInvalidArgument,
                    fmt::format("{}() has no parameter '{}' (parameters: {})", def.name, name, ParamList(def)),
                    bound.span);
    }
    size_t i = static_cast<size_t>(it - def.params.begin());
    if (bound.given[i]) {
      return Status(Code::kInvalidArgument, fmt::format("{}() got two values for '{}'", def.name, name),
                    bound.span);
    }
    bound.values[i] = value;
    bound.given[i] = true;
    bound.spans[i] = span;
  }
  return Status::OK();
}

}  // namespace

Result<BoundArgs> BindBuiltinArgs(const BuiltinDef& def, CallArgs args, const SourceSpan& span) {
  BoundArgs bound;
  bound.def = &def;
  bound.span = span;
  size_t n = def.params.size();
  bound.values.resize(n);
  bound.given.assign(n, false);
  bound.spans.assign(n, span);
  size_t positional_params = 0;
  while (positional_params < n && !def.params[positional_params].keyword_only) ++positional_params;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    SourceSpan s = i < args.positional_spans.size() && args.positional_spans[i].valid() ? args.positional_spans[i]
                                                                                          : span;
    if (i < positional_params) {
      bound.values[i] = args.positional[i];
      bound.given[i] = true;
      bound.spans[i] = s;
    } else if (def.variadic) {
      bound.rest.push_back(args.positional[i]);
      bound.rest_spans.push_back(s);
    } else {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}() takes at most {} argument{} ({}), got {}", def.name, positional_params,
                                positional_params == 1 ? "" : "s", ParamList(def), args.positional.size()),
                    span);
    }
  }
  TFG_RETURN_IF_ERROR(BindKeywords(def, args, bound));
  for (size_t i = 0; i < n; ++i) {
    if (bound.given[i]) continue;
    if (!def.params[i].default_value) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}() is missing its argument '{}'; usage: {}", def.name, def.params[i].name,
                                BuiltinSignature(def)),
                    span);
    }
    bound.values[i] = *def.params[i].default_value;
  }
  bound.original = std::move(args);
  return bound;
}

namespace {

Status ArgError(const BoundArgs& args, size_t i, const char* expected) {
  return Status(Code::kInvalidArgument,
                fmt::format("{}(): '{}' must be {}, got {}", args.def->name, args.def->params[i].name, expected,
                            Describe(args[i])),
                args.spans[i]);
}

}  // namespace

Result<int64_t> IntArg(const BoundArgs& args, size_t i) {
  if (auto v = AsHostInt(args[i])) return *v;
  return ArgError(args, i, "an int");
}

Result<double> NumberArg(const BoundArgs& args, size_t i) {
  const Value& v = args[i];
  if (v.is_number()) return v.as_number();
  if (v.is(ValueKind::kTensor) && IsNumeric(v.as_tensor().dtype()) && v.as_tensor().num_elements() == 1) {
    return TensorElement(v.as_tensor(), 0).as_number();
  }
  return ArgError(args, i, "a number");
}

Result<std::string> StringArg(const BoundArgs& args, size_t i) {
  if (args[i].is(ValueKind::kString)) return args[i].as_string();
  return ArgError(args, i, "a string");
}

Result<bool> BoolArg(const BoundArgs& args, size_t i) {
  if (args[i].is(ValueKind::kBool)) return args[i].as_bool();
  return ArgError(args, i, "true or false");
}

std::vector<std::pair<std::string, Value>> PredefinedNames() {
  std::vector<std::pair<std::string, Value>> names;
  for (DType d : kAllDTypes) names.emplace_back(std::string(DTypeName(d)), Value::Type(d));
  // TensorFlow's spellings, which scripts ported from it (and fingers used to
  // it) write: the same dtypes and ops under their TensorFlow names.
  static constexpr std::pair<const char*, DType> kTfDTypes[] = {
      {"float16", DType::kF16}, {"float32", DType::kF32}, {"float64", DType::kF64},
      {"int32", DType::kI32},   {"int64", DType::kI64}};
  for (const auto& [name, d] : kTfDTypes) names.emplace_back(name, Value::Type(d));
  static constexpr std::pair<const char*, const char*> kTfOps[] = {
      {"reduce_sum", "sum"},  {"reduce_mean", "mean"}, {"reduce_max", "max"},   {"reduce_min", "min"},
      {"reduce_prod", "prod"}, {"multiply", "mul"},    {"subtract", "sub"},     {"negative", "neg"}};
  for (const auto& [alias, op] : kTfOps) {
    if (const OpDef* def = OpRegistry::Global().Find(op)) names.emplace_back(alias, Value::OpFunction(def));
  }
  return names;
}

}  // namespace tfg
