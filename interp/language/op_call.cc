#include "interp/language/op_call.h"

#include <algorithm>

#include "interp/language/container_path.h"
#include "interp/language/value_convert.h"

namespace tfg {

namespace {

std::string ParamName(const OpDef& op, const ParamRef& p) {
  if (p.is_variable) return op.variables[p.index];
  return p.is_input ? op.inputs[p.index].name : op.attrs[p.index].name;
}

int FindVariable(const OpDef& op, const std::string& name) {
  auto it = std::find(op.variables.begin(), op.variables.end(), name);
  return it == op.variables.end() ? -1 : static_cast<int>(it - op.variables.begin());
}

// A dtype or list-of-dtypes attr: when inferred, still givable by keyword.
bool IsTypeAttr(const AttrDef& a) { return a.type == AttrType::kType || a.type == AttrType::kTypeList; }

std::string ParamList(const OpDef& op) {
  std::string out;
  for (const ParamRef& p : op.params) out += (out.empty() ? "" : ", ") + ParamName(op, p);
  for (const AttrDef& a : op.attrs) {
    if (a.inferred && IsTypeAttr(a)) out += (out.empty() ? "" : ", ") + a.name + "=";
  }
  return out.empty() ? "none" : out;
}

// The inferred type attr `dtype=` stands for: the one the first typed input
// uses.
const AttrDef* DTypeAlias(const OpDef& op) {
  if (op.FindAttr("dtype")) return nullptr;
  for (const ArgDef& in : op.inputs) {
    const AttrDef* a = op.FindAttr(in.type);
    if (a && a->type == AttrType::kType) return a;
  }
  return nullptr;
}

struct Binder {
  const OpDef& op;
  BoundOpCall& call;
  std::vector<bool> attr_given;

  Status Bind(const std::string& name, const Value& v, const SourceSpan& span) {
    if (int var = FindVariable(op, name); var >= 0) return BindVariable(var, v, span);
    int in = op.FindInput(name);
    if (in >= 0) {
      if (call.inputs[in]) return Repeated(name, span);
      call.inputs[in] = v;
      return Status::OK();
    }
    const AttrDef* attr = op.FindAttr(name);
    if (name == "dtype" && !attr) attr = DTypeAlias(op);
    if (!attr || (attr->inferred && !IsTypeAttr(*attr))) return Unknown(name, span);
    if (const AttrDef* sizes = SizesFor(*attr, v)) attr = sizes;
    size_t index = static_cast<size_t>(attr - op.attrs.data());
    if (attr_given[index]) return Repeated(name, span);
    attr_given[index] = true;
    auto converted = ConvertAttr(op, *attr, v);
    if (!converted.ok()) return Status(converted.status()).WithSpan(span);
    if (!std::holds_alternative<std::monostate>(*converted) || attr->type == AttrType::kShape) {
      call.attrs[attr->name] = std::move(*converted);
    }
    return Status::OK();
  }

  // An output list's length given as a list (split(x, [1, 2]), as
  // TensorFlow's num_or_size_splits): the list is the op's int-list attr
  // `sizes`, and SetCountsFromSizes makes the length its size.
  const AttrDef* SizesFor(const AttrDef& count, const Value& v) const {
    bool is_list = v.is(ValueKind::kList) || v.is(ValueKind::kRange) ||
                   (v.is(ValueKind::kTensor) && v.as_tensor().rank() == 1);
    if (count.type != AttrType::kInt || !is_list) return nullptr;
    bool counts_outputs = std::any_of(op.outputs.begin(), op.outputs.end(), [&](const ArgDef& out) {
      return out.is_list && out.count_attr == count.name;
    });
    const AttrDef* sizes = op.FindAttr("sizes");
    return counts_outputs && sizes && sizes->type == AttrType::kIntList ? sizes : nullptr;
  }

  // An output list's length not given, with `sizes` given: len(sizes).
  void SetCountsFromSizes() {
    const auto* sizes = FindAttr<std::vector<int64_t>>(call.attrs, "sizes");
    if (!sizes) return;
    for (const ArgDef& out : op.outputs) {
      const AttrDef* count = out.is_list ? op.FindAttr(out.count_attr) : nullptr;
      if (!count || count->type != AttrType::kInt) continue;
      size_t index = static_cast<size_t>(count - op.attrs.data());
      if (attr_given[index]) continue;
      attr_given[index] = true;
      call.attrs[count->name] = static_cast<int64_t>(sizes->size());
    }
  }

  // The op names the variable by its shared name and container (attrs
  // `<param>`, `<param>_container`); its type attr takes the variable's dtype.
  Status BindVariable(int index, const Value& v, const SourceSpan& span) {
    const std::string& name = op.variables[index];
    if (call.variables[index]) return Repeated(name, span);
    if (!v.is(ValueKind::kVariable)) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}: '{}' must be a variable (made by variable(...)), got {}", op.name, name,
                                Describe(v)),
                    span);
    }
    const std::shared_ptr<VariableInfo>& var = v.as_variable();
    call.variables[index] = var;
    for (const std::string& attr : {name, name + "_container"}) {
      const AttrDef* def = op.FindAttr(attr);
      attr_given[static_cast<size_t>(def - op.attrs.data())] = true;
    }
    call.attrs[name] = var->shared_name;
    call.attrs[name + "_container"] = var->container;
    return Status::OK();
  }

  // Variables of one type attr must agree, and fix it unless the caller did.
  Status BindVariableTypes(const SourceSpan& span) {
    for (size_t i = 0; i < op.variables.size(); ++i) {
      if (!call.variables[i]) continue;
      const std::string& type_attr = op.variable_types[i];
      DType dtype = call.variables[i]->dtype();
      const DType* bound = FindAttr<DType>(call.attrs, type_attr);
      if (bound && *bound != dtype) {
        return Status(Code::kInvalidArgument,
                      fmt::format("{}: variable '{}' ({}) holds {}, but {} is {}", op.name, op.variables[i],
                                  call.variables[i]->shared_name, DTypeName(dtype), type_attr, DTypeName(*bound)),
                      span);
      }
      call.attrs[type_attr] = dtype;
    }
    return Status::OK();
  }

  // Every input given, and every attr without a default or inference.
  Status CheckComplete(const SourceSpan& span) {
    for (size_t i = 0; i < op.variables.size(); ++i) {
      if (call.variables[i]) continue;
      return Status(Code::kInvalidArgument,
                    fmt::format("{} is missing its variable '{}' (parameters: {})", op.name, op.variables[i],
                                ParamList(op)),
                    span);
    }
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (call.inputs[i]) continue;
      return Status(Code::kInvalidArgument,
                    fmt::format("{} is missing its input '{}' (parameters: {})", op.name, op.inputs[i].name,
                                ParamList(op)),
                    span);
    }
    for (size_t i = 0; i < op.attrs.size(); ++i) {
      const AttrDef& a = op.attrs[i];
      if (attr_given[i] || a.inferred || a.default_value) continue;
      return Status(Code::kInvalidArgument,
                    fmt::format("{} is missing its argument '{}' (parameters: {})", op.name, a.name, ParamList(op)),
                    span);
    }
    return Status::OK();
  }

  Status Repeated(const std::string& name, const SourceSpan& span) {
    return Status(Code::kInvalidArgument, fmt::format("{}: got two values for '{}'", op.name, name), span);
  }
  Status Unknown(const std::string& name, const SourceSpan& span) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{} has no parameter '{}' (parameters: {})", op.name, name, ParamList(op)), span);
  }
};

}  // namespace

Result<BoundOpCall> BindOpCall(const OpDef& op, const CallArgs& args, const SourceSpan& span) {
  // Binding errors point at the whole call.
  BoundOpCall call;
  call.op = &op;
  call.inputs.resize(op.inputs.size());
  call.variables.resize(op.variables.size());
  Binder binder{op, call, std::vector<bool>(op.attrs.size(), false)};
  if (args.positional.size() > op.params.size()) {
    return Status(Code::kInvalidArgument,
                  fmt::format("{} takes at most {} positional argument{} ({}), got {}", op.name, op.params.size(),
                              op.params.size() == 1 ? "" : "s", ParamList(op), args.positional.size()),
                  span);
  }
  for (size_t i = 0; i < args.positional.size(); ++i) {
    TFG_RETURN_IF_ERROR(binder.Bind(ParamName(op, op.params[i]), args.positional[i], span));
  }
  for (const auto& [name, value] : args.keywords) {
    if (name != "name") {
      TFG_RETURN_IF_ERROR(binder.Bind(name, value, span));
    } else if (call.name) {
      return binder.Repeated(name, span);
    } else if (!value.is(ValueKind::kString)) {
      return Status(Code::kInvalidArgument,
                    fmt::format("{}: name= must be a string, got {}", op.name, Describe(value)), span);
    } else {
      call.name = value.as_string();
    }
  }
  binder.SetCountsFromSizes();
  TFG_RETURN_IF_ERROR(binder.CheckComplete(span));
  TFG_RETURN_IF_ERROR(binder.BindVariableTypes(span));
  return call;
}

// ------------------------------------------------------------------ attrs

namespace {

Status AttrError(const OpDef& op, const AttrDef& attr, const Value& v, const std::string& expected) {
  return InvalidArgument("{}: '{}' must be {}, got {}", op.name, attr.name, expected,
                         v.is(ValueKind::kString) ? "\"" + v.as_string() + "\"" : Describe(v));
}

// Flattens nested lists, ranges and host tensors into scalars.
Status FlattenOnPath(const Value& v, std::vector<Value>& out, ContainerPath& path) {
  if (v.is(ValueKind::kList)) {
    if (path.depth() > 32) return InvalidArgument("list nested too deeply");
    if (!path.Enter(v)) return InvalidArgument("a list that holds itself has no end to flatten");
    for (const Value& item : v.as_list().items) {
      Status s = FlattenOnPath(item, out, path);
      if (!s.ok()) return s;
    }
    path.Leave(v);
  } else if (v.is(ValueKind::kRange)) {
    for (int64_t i = 0; i < v.as_range().size(); ++i) out.push_back(Value::Int(v.as_range().at(i)));
  } else if (v.is(ValueKind::kTensor)) {
    for (int64_t i = 0; i < v.as_tensor().num_elements(); ++i) out.push_back(TensorElement(v.as_tensor(), i));
  } else {
    out.push_back(v);
  }
  return Status::OK();
}

Status Flatten(const Value& v, std::vector<Value>& out) {
  ContainerPath path;
  return FlattenOnPath(v, out, path);
}

Result<AttrValue> IntListAttr(const OpDef& op, const AttrDef& attr, const Value& v) {
  std::vector<Value> items;
  TFG_RETURN_IF_ERROR(Flatten(v, items));
  std::vector<int64_t> out;
  for (const Value& item : items) {
    if (!item.is(ValueKind::kInt)) return AttrError(op, attr, v, "an int or a list of ints");
    out.push_back(item.as_int());
  }
  return AttrValue(std::move(out));
}

Result<AttrValue> FloatListAttr(const OpDef& op, const AttrDef& attr, const Value& v) {
  std::vector<Value> items;
  TFG_RETURN_IF_ERROR(Flatten(v, items));
  std::vector<double> out;
  for (const Value& item : items) {
    if (!item.is_number()) return AttrError(op, attr, v, "a number or a list of numbers");
    out.push_back(item.as_number());
  }
  return AttrValue(std::move(out));
}

Result<PartialShape> ShapeOf(const OpDef& op, const AttrDef& attr, const Value& v) {
  if (v.is_none()) return PartialShape::Unknown();
  if (v.is(ValueKind::kInt)) return PartialShape({v.as_int()});
  std::vector<Value> items;
  if (v.is(ValueKind::kList)) {
    items = v.as_list().items;
  } else if (v.is(ValueKind::kTensor) || v.is(ValueKind::kRange)) {
    TFG_RETURN_IF_ERROR(Flatten(v, items));
  } else {
    return AttrError(op, attr, v, "a shape such as [?, 784]");
  }
  std::vector<int64_t> dims;
  for (const Value& d : items) {
    if (d.is_none()) {
      dims.push_back(PartialShape::kUnknown);
    } else if (d.is(ValueKind::kInt) && d.as_int() >= -1) {
      dims.push_back(d.as_int());
    } else {
      return AttrError(op, attr, v, "a shape such as [?, 784] (dims are ints >= 0 or ?)");
    }
  }
  return PartialShape(std::move(dims));
}

template <typename T, typename F>
Result<AttrValue> ListAttr(const Value& v, F&& one) {
  std::vector<T> out;
  if (!v.is(ValueKind::kList)) {
    TFG_ASSIGN_OR_RETURN(T x, one(v));
    out.push_back(std::move(x));
    return AttrValue(std::move(out));
  }
  for (const Value& item : v.as_list().items) {
    TFG_ASSIGN_OR_RETURN(T x, one(item));
    out.push_back(std::move(x));
  }
  return AttrValue(std::move(out));
}

Result<AttrValue> ScalarAttr(const OpDef& op, const AttrDef& attr, const Value& v) {
  switch (attr.type) {
    case AttrType::kInt:
      if (auto i = AsHostInt(v)) return AttrValue(*i);
      return AttrError(op, attr, v, "an int");
    case AttrType::kFloat:
      if (v.is_number()) return AttrValue(v.as_number());
      // As in TensorFlow's Python API, where True is 1: one_hot's on_value=true,
      // off_value=false with dtype=bool.
      if (v.is(ValueKind::kBool)) return AttrValue(v.as_bool() ? 1.0 : 0.0);
      if (v.is(ValueKind::kTensor) && IsNumeric(v.as_tensor().dtype()) && v.as_tensor().num_elements() == 1) {
        return AttrValue(TensorElement(v.as_tensor(), 0).as_number());
      }
      return AttrError(op, attr, v, "a number");
    case AttrType::kBool:
      if (v.is(ValueKind::kBool)) return AttrValue(v.as_bool());
      return AttrError(op, attr, v, "true or false");
    case AttrType::kString:
      if (v.is(ValueKind::kString)) return AttrValue(v.as_string());
      return AttrError(op, attr, v, "a string");
    default: return Internal("{}: attr '{}' is not a scalar", op.name, attr.name);
  }
}

Result<DType> DTypeOf(const OpDef& op, const AttrDef& attr, const Value& v) {
  if (v.is(ValueKind::kDType)) return v.as_dtype();
  if (v.is(ValueKind::kString)) {
    if (auto d = DTypeFromName(v.as_string())) return *d;
  }
  return AttrError(op, attr, v, "a dtype (f16 f32 f64 i32 i64 bool string)");
}

}  // namespace

Result<AttrValue> ConvertAttr(const OpDef& op, const AttrDef& attr, const Value& v) {
  if (v.is_graph() || v.is(ValueKind::kOp)) {
    return InvalidArgument("{}: '{}' is an attribute and must be known when the graph is built; got {}", op.name,
                           attr.name, Describe(v));
  }
  if (v.is_none()) {
    if (attr.type == AttrType::kShape) return AttrValue(PartialShape::Unknown());
    return AttrValue(std::monostate{});
  }
  switch (attr.type) {
    case AttrType::kInt:
    case AttrType::kFloat:
    case AttrType::kBool:
    case AttrType::kString: return ScalarAttr(op, attr, v);
    case AttrType::kType: {
      TFG_ASSIGN_OR_RETURN(DType d, DTypeOf(op, attr, v));
      return AttrValue(d);
    }
    case AttrType::kShape: {
      TFG_ASSIGN_OR_RETURN(PartialShape s, ShapeOf(op, attr, v));
      return AttrValue(std::move(s));
    }
    case AttrType::kIntList: return IntListAttr(op, attr, v);
    case AttrType::kFloatList: return FloatListAttr(op, attr, v);
    case AttrType::kTypeList:
      return ListAttr<DType>(v, [&](const Value& x) { return DTypeOf(op, attr, x); });
    case AttrType::kShapeList:
      if (!v.is(ValueKind::kList)) return AttrError(op, attr, v, "a list of shapes");
      return ListAttr<PartialShape>(v, [&](const Value& x) { return ShapeOf(op, attr, x); });
    case AttrType::kStringList:
      return ListAttr<std::string>(v, [&](const Value& x) -> Result<std::string> {
        if (!x.is(ValueKind::kString)) return AttrError(op, attr, v, "a list of strings");
        return x.as_string();
      });
    case AttrType::kTensor: {
      auto t = ToTensor(v);
      if (!t.ok()) return Status(t.status()).Prepend(op.name + ": '" + attr.name + "': ");
      return AttrValue(*t);
    }
  }
  return Internal("{}: unknown attr type", op.name);
}

// ------------------------------------------------------------ input dtypes

namespace {

// The values an input holds: a list input's elements, else the value.
std::vector<const Value*> ValuesOf(const ArgDef& arg, const Value& v) {
  std::vector<const Value*> out;
  if (arg.is_list && v.is(ValueKind::kList)) {
    for (const Value& item : v.as_list().items) out.push_back(&item);
  } else {
    out.push_back(&v);
  }
  return out;
}

// A dtype every host value sharing a type attr can take: the widest kind
// among their defaults (int values join floats); nullopt when they
// disagree otherwise (the signature check then names them).
std::optional<DType> AgreedDefault(const std::vector<const Value*>& values) {
  std::optional<DType> agreed;
  for (const Value* v : values) {
    auto d = DefaultDType(*v);
    if (!d.ok()) continue;
    if (!agreed || *agreed == *d) {
      agreed = *d;
    } else if (IsInteger(*agreed) && IsFloat(*d)) {
      agreed = *d;
    } else if (IsInteger(*agreed) && IsInteger(*d)) {
      agreed = DType::kI64;
    } else if (!(IsFloat(*agreed) && IsInteger(*d))) {
      return std::nullopt;
    }
  }
  return agreed;
}

InputDType InferTypeAttr(const BoundOpCall& call, const std::string& type_attr) {
  const OpDef& op = *call.op;
  std::vector<const Value*> host;
  std::optional<InputDType> from_host_tensor;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (op.inputs[i].type != type_attr || !call.inputs[i]) continue;
    for (const Value* v : ValuesOf(op.inputs[i], *call.inputs[i])) {
      if (v->is_graph()) return {v->graph_output().dtype(), "input '" + op.inputs[i].name + "'"};
      if (v->is(ValueKind::kTensor) && !from_host_tensor) {
        from_host_tensor = InputDType{v->as_tensor().dtype(), "input '" + op.inputs[i].name + "'"};
      }
      host.push_back(v);
    }
  }
  if (from_host_tensor) return *from_host_tensor;
  return {AgreedDefault(host), ""};
}

// "variable 'var'" when a bound variable fixed the type attr.
std::optional<std::string> VariableOfType(const BoundOpCall& call, const std::string& type_attr) {
  const OpDef& op = *call.op;
  for (size_t i = 0; i < op.variables.size(); ++i) {
    if (call.variables[i] && op.variable_types[i] == type_attr) return "variable '" + op.variables[i] + "'";
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<InputDType>> ResolveInputDTypes(const BoundOpCall& call) {
  const OpDef& op = *call.op;
  std::vector<InputDType> out;
  for (const ArgDef& arg : op.inputs) {
    const AttrDef* type_list = op.FindAttr(arg.type);
    if (type_list && type_list->type == AttrType::kTypeList) {
      // One dtype per element: each host value takes its own default, and
      // the signature check compares them with the list when it is given.
      out.push_back({std::nullopt, arg.type + "="});
    } else if (auto fixed = DTypeFromName(arg.type)) {
      out.push_back({*fixed, "the op's signature"});
    } else if (const DType* given = FindAttr<DType>(call.attrs, arg.type)) {
      out.push_back({*given, VariableOfType(call, arg.type).value_or(arg.type + "=")});
    } else {
      out.push_back(InferTypeAttr(call, arg.type));
    }
  }
  return out;
}

bool ReturnsList(const OpDef& op) {
  return !(op.outputs.size() == 1 && !op.outputs[0].is_list);
}

}  // namespace tfg
