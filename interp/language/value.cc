#include "interp/language/value.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "interp/language/ast.h"
#include "interp/language/container_path.h"
#include "interp/language/value_convert.h"
#include "interp/language/value_walk.h"
#include "interp/runtime/colocation.h"

namespace tfg {

const char* KindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNone: return "none";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int";
    case ValueKind::kFloat: return "float";
    case ValueKind::kString: return "string";
    case ValueKind::kList: return "list";
    case ValueKind::kDict: return "dict";
    case ValueKind::kTensor: return "host tensor";
    case ValueKind::kGraphTensor: return "graph tensor";
    case ValueKind::kOp: return "op";
    case ValueKind::kVariable: return "variable";
    case ValueKind::kFunction: return "function";
    case ValueKind::kBuiltin: return "builtin function";
    case ValueKind::kOpFunction: return "op function";
    case ValueKind::kModule: return "module";
    case ValueKind::kDType: return "dtype";
    case ValueKind::kRange: return "range";
    case ValueKind::kContext: return "context";
  }
  return "?";
}

size_t Dict::size() const { return entries_.size(); }

Value Value::NewList(std::vector<Value> items) {
  auto list = std::make_shared<List>();
  list->items = std::move(items);
  return Value(Rep(std::move(list)));
}

bool Value::SameObject(const Value& other) const {
  if (rep_.index() != other.rep_.index()) return false;
  switch (kind()) {
    case ValueKind::kList: return &as_list() == &other.as_list();
    case ValueKind::kDict: return &as_dict() == &other.as_dict();
    case ValueKind::kFunction: return as_function() == other.as_function();
    case ValueKind::kModule: return as_module() == other.as_module();
    case ValueKind::kVariable: return as_variable() == other.as_variable();
    case ValueKind::kGraphTensor: return as_output() == other.as_output();
    case ValueKind::kOp: return as_op() == other.as_op();
    case ValueKind::kBuiltin: return as_builtin() == other.as_builtin();
    case ValueKind::kOpFunction: return as_op_function() == other.as_op_function();
    case ValueKind::kTensor: return as_tensor().buffer() == other.as_tensor().buffer();
    default: return false;
  }
}

int64_t Range::size() const {
  // 128-bit intermediates: range(-2**62, 2**62) must not overflow.
  __int128 a = start, b = stop, s = step;
  if (s > 0 && a < b) return static_cast<int64_t>((b - a + s - 1) / s);
  if (s < 0 && a > b) return static_cast<int64_t>((a - b - s - 1) / -s);
  return 0;
}

Value* Env::Lookup(const std::string& name) {
  for (Env* env = this; env != nullptr; env = env->parent.get()) {
    auto it = env->vars.find(name);
    if (it != env->vars.end()) return &it->second;
  }
  return nullptr;
}

// ------------------------------------------------------------------- dicts

namespace {

// A scalar host tensor (an element fetched by run()) is the key its value
// is, as NumPy's scalars are in Python: d[run(label)] finds d[3].
Value NormalizedKey(const Value& key) {
  if (key.is(ValueKind::kTensor) && key.as_tensor().rank() == 0) return TensorElement(key.as_tensor(), 0);
  return key;
}

// Equal keys encode equally: 1, 1.0 and true are one key, as in Python.
Result<std::string> KeyOf(const Value& raw_key) {
  const Value key = NormalizedKey(raw_key);
  switch (key.kind()) {
    case ValueKind::kNone: return std::string("n");
    case ValueKind::kBool: return std::string(key.as_bool() ? "i:1" : "i:0");
    case ValueKind::kInt: return "i:" + std::to_string(key.as_int());
    case ValueKind::kFloat: {
      double d = key.as_float();
      if (std::trunc(d) == d && std::fabs(d) < 9.2e18) return "i:" + std::to_string(static_cast<int64_t>(d));
      return "f:" + FormatFloat(d);
    }
    case ValueKind::kString: return "s:" + key.as_string();
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable: {
      Output o = key.graph_output();
      return fmt::format("g:{}:{}", o.node->id(), o.index);
    }
    case ValueKind::kOp: return fmt::format("o:{}", key.as_op()->id());
    case ValueKind::kDType: return "d:" + std::string(DTypeName(key.as_dtype()));
    default: return InvalidArgument("{} cannot be a dict key", Describe(key));
  }
}

}  // namespace

Value* Dict::Find(const Value& key) {
  auto k = KeyOf(key);
  if (!k.ok()) return nullptr;
  auto it = index_.find(*k);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

const Value* Dict::Find(const Value& key) const { return const_cast<Dict*>(this)->Find(key); }

Status Dict::Set(const Value& key, Value value) {
  TFG_ASSIGN_OR_RETURN(std::string k, KeyOf(key));
  auto it = index_.find(k);
  if (it != index_.end()) {
    entries_[it->second].second = std::move(value);
  } else {
    index_.emplace(std::move(k), entries_.size());
    entries_.emplace_back(NormalizedKey(key), std::move(value));
  }
  return Status::OK();
}

// ------------------------------------------------------------ descriptions

namespace {

std::string TypeAndShape(DType dtype, const PartialShape& shape) {
  return std::string(DTypeName(dtype)) + (shape.known_rank() ? shape.ToString() : "[unknown rank]");
}

}  // namespace

std::vector<std::string_view> Characters(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size();) {
    size_t end = i + 1;
    while (end < s.size() && ContinuesCharacter(s[end])) ++end;
    out.push_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

std::string OutputName(const Output& o) { return o.node->name() + ":" + std::to_string(o.index); }

std::string Describe(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kTensor: return "a host tensor " + v.as_tensor().DebugString();
    case ValueKind::kGraphTensor: return "a graph tensor " + TypeAndShape(v.as_output().dtype(), v.as_output().shape());
    case ValueKind::kVariable: return "a variable " + TypeAndShape(v.as_variable()->dtype(), v.as_variable()->shape());
    case ValueKind::kNone: return "none";
    case ValueKind::kInt:
    case ValueKind::kOp:
    case ValueKind::kOpFunction: return std::string("an ") + KindName(v.kind());
    default: return std::string("a ") + KindName(v.kind());
  }
}

bool ContainsGraph(const Value& v) {
  NestedWalk walk(v, /*dict_values=*/true);
  while (const Value* item = walk.Next()) {
    if (item->is_graph()) return true;
  }
  return false;
}

Result<bool> Truthy(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNone: return false;
    case ValueKind::kBool: return v.as_bool();
    case ValueKind::kInt: return v.as_int() != 0;
    case ValueKind::kFloat: return v.as_float() != 0.0;
    case ValueKind::kString: return !v.as_string().empty();
    case ValueKind::kList: return !v.as_list().items.empty();
    case ValueKind::kDict: return v.as_dict().size() != 0;
    case ValueKind::kRange: return v.as_range().size() != 0;
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      if (t.num_elements() != 1) {
        return InvalidArgument("the truth value of a host tensor with {} elements is ambiguous ({})",
                               t.num_elements(), t.DebugString());
      }
      return Truthy(TensorElement(t, 0));
    }
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable:
      return InvalidArgument(
          "{} has no truth value while the graph is built; run(...) it first, or use cond(...) / where(...) "
          "to choose inside the graph",
          Describe(v));
    default: return true;
  }
}

// ---------------------------------------------------------------- printing

std::string FormatFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, then Python's choice between fixed and
  // exponent notation (exponent notation below 1e-4 and from 1e16 on).
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out = "0." + std::string(-exp - 1, '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp + 1) {
      out = digits + std::string(exp + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
  }
  return negative ? "-" + out : out;
}

namespace {

// A list or dict inside itself prints as [...] or {...}, as in Python; so
// does one nested deeper than this.
constexpr size_t kMaxReprDepth = 64;

std::string ReprAt(const Value& v, ContainerPath& path);

std::string ListRepr(const Value& v, ContainerPath& path) {
  const List& list = v.as_list();
  std::string out = "[";
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i) out += ", ";
    out += ReprAt(list.items[i], path);
  }
  return out + "]";
}

std::string DictRepr(const Value& v, ContainerPath& path) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, item] : v.as_dict().entries()) {
    if (!first) out += ", ";
    first = false;
    out += ReprAt(k, path) + ": " + ReprAt(item, path);
  }
  return out + "}";
}

std::string ContainerRepr(const Value& v, ContainerPath& path) {
  const bool list = v.is(ValueKind::kList);
  if (path.depth() >= kMaxReprDepth || !path.Enter(v)) return list ? "[...]" : "{...}";
  std::string out = list ? ListRepr(v, path) : DictRepr(v, path);
  path.Leave(v);
  return out;
}

std::string QuoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string ContextRepr(const ContextValue& c) {
  switch (c.kind) {
    case ContextValue::Kind::kDevice:
      return c.setter ? "<replica_device_setter " + c.text + ">" : "<device " + QuoteString(c.text) + ">";
    case ContextValue::Kind::kScope: return "<scope " + QuoteString(c.text) + ">";
    case ContextValue::Kind::kContainer: return "<container " + QuoteString(c.text) + ">";
    case ContextValue::Kind::kDeps: return fmt::format("<deps on {} nodes>", c.nodes.size());
    case ContextValue::Kind::kColocate: return "<colocate_with " + QuoteString(c.text) + ">";
  }
  return "<context>";
}

// ` device="/job:ps/task:0"` when the node asks for a device, else "".
std::string DeviceNote(const Node* node) {
  const std::string device = SplitDeviceRequest(node->requested_device()).device;
  return device.empty() ? "" : " device=" + QuoteString(device);
}

// A string scalar (a record key fetched by run()) quoted like a string,
// so that it reads as one inside a list; other tensors in NumPy's layout.
std::string TensorRepr(const Tensor& t) {
  if (t.dtype() == DType::kString && t.rank() == 0) return QuoteString(TensorElement(t, 0).as_string());
  return FormatTensor(t);
}

std::string ReprAt(const Value& v, ContainerPath& path) {
  switch (v.kind()) {
    case ValueKind::kNone: return "none";
    case ValueKind::kBool: return v.as_bool() ? "true" : "false";
    case ValueKind::kInt: return std::to_string(v.as_int());
    case ValueKind::kFloat: return FormatFloat(v.as_float());
    case ValueKind::kString: return QuoteString(v.as_string());
    case ValueKind::kList:
    case ValueKind::kDict: return ContainerRepr(v, path);
    case ValueKind::kTensor: return TensorRepr(v.as_tensor());
    case ValueKind::kGraphTensor: {
      const Output& o = v.as_output();
      return fmt::format("<tensor \"{}\" {}{}>", OutputName(o), TypeAndShape(o.dtype(), o.shape()), DeviceNote(o.node));
    }
    case ValueKind::kVariable: {
      const auto& var = *v.as_variable();
      return fmt::format("<variable \"{}\" {}{}>", OutputName(var.output()), TypeAndShape(var.dtype(), var.shape()),
                         DeviceNote(var.node));
    }
    case ValueKind::kOp: return fmt::format("<op \"{}\">", v.as_op()->name());
    case ValueKind::kFunction: return "<fn " + v.as_function()->def->name + ">";
    case ValueKind::kBuiltin: return "<builtin " + v.builtin_name() + ">";
    case ValueKind::kOpFunction: return "<op function " + v.as_op_function()->name + ">";
    case ValueKind::kModule: return "<module " + v.as_module()->name + ">";
    case ValueKind::kDType: return std::string(DTypeName(v.as_dtype()));
    case ValueKind::kRange: {
      const Range& r = v.as_range();
      if (r.step == 1) return fmt::format("range({}, {})", r.start, r.stop);
      return fmt::format("range({}, {}, {})", r.start, r.stop, r.step);
    }
    case ValueKind::kContext: return ContextRepr(v.as_context());
  }
  return "?";
}

}  // namespace

std::string Repr(const Value& v) {
  ContainerPath path;
  return ReprAt(v, path);
}

std::string ToDisplayString(const Value& v) {
  if (v.is(ValueKind::kString)) return v.as_string();
  if (v.is(ValueKind::kTensor) && v.as_tensor().dtype() == DType::kString && v.as_tensor().rank() == 0) {
    return FormatTensor(v.as_tensor());
  }
  return Repr(v);
}

}  // namespace tfg
