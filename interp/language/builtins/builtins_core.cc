// Host builtins: print, conversions, containers, range, min/max/abs.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "interp/language/builtins/builtins.h"
#include "interp/language/value_arith.h"
#include "interp/language/value_convert.h"

namespace tfg {
namespace {

Status Fail(const BoundArgs& args, const std::string& msg) {
  return Status(Code::kInvalidArgument, args.def->name + "(): " + msg, args.span);
}

Result<Value> Print(BuiltinContext& ev, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::string sep, StringArg(args, 0));
  TFG_ASSIGN_OR_RETURN(std::string end, StringArg(args, 1));
  if (ev.options().check_only) return Value();
  std::string line;
  for (size_t i = 0; i < args.rest.size(); ++i) {
    if (i) line += sep;
    line += ToDisplayString(args.rest[i]);
  }
  // Only where the progress line would be in the way: stdout on the terminal.
  if (&ev.out() == &std::cout && isatty(STDOUT_FILENO)) CloseProgressLine(ev);
  ev.out() << line << end << std::flush;
  return Value();
}

// The host scalar inside a one-element tensor, else the value itself.
Value Scalarize(const Value& v) {
  if (v.is(ValueKind::kTensor) && v.as_tensor().num_elements() == 1) return TensorElement(v.as_tensor(), 0);
  return v;
}

Result<Value> ToInt(BuiltinContext&, BoundArgs& args) {
  Value v = Scalarize(args[0]);
  switch (v.kind()) {
    case ValueKind::kInt: return v;
    case ValueKind::kBool: return Value::Int(v.as_bool() ? 1 : 0);
    case ValueKind::kFloat: {
      double d = v.as_float();
      if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return Fail(args, "cannot convert " + FormatFloat(d) + " to an int");
      return Value::Int(static_cast<int64_t>(std::trunc(d)));
    }
    case ValueKind::kString: {
      std::istringstream in(v.as_string());
      int64_t i;
      if (in >> i && (in >> std::ws).eof()) return Value::Int(i);
      return Fail(args, "\"" + v.as_string() + "\" is not an int");
    }
    default: return Fail(args, "cannot convert " + Describe(v) + " to an int");
  }
}

// As Python's float(): white space around the number, inf, infinity and
// nan in any case and with a sign; a value past the range is inf (and one
// below it 0), not an error. Hex floats are not numbers here either.
std::optional<double> ParseFloat(const std::string& s) {
  constexpr const char* kSpace = " \t\n\r\f\v";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string::npos) return std::nullopt;
  const std::string t = s.substr(first, s.find_last_not_of(kSpace) - first + 1);
  if (t.find_first_of("xX()") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return d;
}

Result<Value> ToFloat(BuiltinContext&, BoundArgs& args) {
  Value v = Scalarize(args[0]);
  switch (v.kind()) {
    case ValueKind::kInt: return Value::Float(static_cast<double>(v.as_int()));
    case ValueKind::kBool: return Value::Float(v.as_bool() ? 1.0 : 0.0);
    case ValueKind::kFloat: return v;
    case ValueKind::kString: {
      if (std::optional<double> d = ParseFloat(v.as_string())) return Value::Float(*d);
      return Fail(args, "\"" + v.as_string() + "\" is not a number");
    }
    default: return Fail(args, "cannot convert " + Describe(v) + " to a float");
  }
}

Result<Value> Len(BuiltinContext&, BoundArgs& args) {
  const Value& v = args[0];
  switch (v.kind()) {
    case ValueKind::kList: return Value::Int(static_cast<int64_t>(v.as_list().items.size()));
    case ValueKind::kString: return Value::Int(static_cast<int64_t>(Characters(v.as_string()).size()));
    case ValueKind::kDict: return Value::Int(static_cast<int64_t>(v.as_dict().size()));
    case ValueKind::kRange: return Value::Int(v.as_range().size());
    case ValueKind::kTensor:
      if (v.as_tensor().rank() == 0) return Fail(args, "a scalar tensor has no length");
      return Value::Int(v.as_tensor().dim(0));
    case ValueKind::kGraphTensor:
    case ValueKind::kVariable: {
      const PartialShape& s = v.graph_output().shape();
      if (s.rank() == 0) return Fail(args, "a scalar tensor has no length");
      if (s.rank() < 0 || s.dim(0) < 0) {
        return Fail(args, "the first dimension of " + Describe(v) + " is not known while the graph is built");
      }
      return Value::Int(s.dim(0));
    }
    default: return Fail(args, Describe(v) + " has no length");
  }
}

Result<Value> RangeBuiltin(BuiltinContext& ev, BoundArgs& args) {
  std::vector<Value> parts{args[0]};
  if (args.given[1]) parts.push_back(args[1]);
  if (args.given[2]) {
    if (!args.given[1]) return Fail(args, "step given without stop");
    parts.push_back(args[2]);
  }
  bool ints = true, graph = false;
  for (const Value& p : parts) {
    graph |= p.is_graph();
    ints &= AsHostInt(p).has_value();
  }
  if (graph || !ints) {
    // A tensor bound or a float bound: TensorFlow's range op.
    CallArgs op_args;
    op_args.Add(parts.size() == 1 ? Value::Int(0) : parts[0]);
    op_args.Add(parts.size() == 1 ? parts[0] : parts[1]);
    op_args.Add(parts.size() == 3 ? parts[2] : Value::Int(1));
    return ev.CallOpByName("range", std::move(op_args), args.span);
  }
  Range r;
  if (parts.size() == 1) {
    r.stop = *AsHostInt(parts[0]);
  } else {
    r.start = *AsHostInt(parts[0]);
    r.stop = *AsHostInt(parts[1]);
    if (parts.size() == 3) r.step = *AsHostInt(parts[2]);
  }
  if (r.step == 0) return Fail(args, "step cannot be zero");
  // Its length must be an int, for len(), indexing and loops.
  const __int128 span = static_cast<__int128>(r.stop) - r.start;
  const __int128 step = r.step;
  const __int128 count = (span > 0) != (step > 0) ? 0 : (span + step - (step > 0 ? 1 : -1)) / step;
  if (count > std::numeric_limits<int64_t>::max()) {
    return Fail(args, "a range of more than 9223372036854775807 numbers");
  }
  return Value::RangeOf(r);
}

bool IsHostOrderable(const Value& v) {
  return v.is_number() || v.is(ValueKind::kBool) || v.is(ValueKind::kString);
}

// min/max of host numbers (several, or one list of them) follow Python;
// anything else is the min/max reduction op: max(x, axis=1).
Result<Value> Extremum(BuiltinContext& ev, BoundArgs& args, bool is_max) {
  std::vector<Value> items = args.rest;
  if (items.size() == 1 && items[0].is(ValueKind::kList)) items = items[0].as_list().items;
  bool host = !items.empty() && args.original.keywords.empty();
  for (const Value& v : items) host &= IsHostOrderable(v);
  if (!host) {
    if (items.empty()) return Fail(args, "needs at least one value");
    return ev.CallOpByName(is_max ? "max" : "min", args.original, args.span);
  }
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    auto better = HostBinary(is_max ? ast::BinaryOp::kGt : ast::BinaryOp::kLt, items[i], best);
    if (!better.ok()) return Status(better.status()).WithSpan(args.span);
    if (better->as_bool()) best = items[i];
  }
  return best;
}

Result<Value> Abs(BuiltinContext& ev, BoundArgs& args) {
  const Value& v = args[0];
  bool plain = true;  // only x given: a host number stays a host number
  for (const auto& [name, value] : args.original.keywords) plain &= name == "x";
  if (plain && v.is(ValueKind::kInt)) {
    if (v.as_int() == INT64_MIN) return Fail(args, "integer overflow");
    return Value::Int(v.as_int() < 0 ? -v.as_int() : v.as_int());
  }
  if (plain && v.is(ValueKind::kFloat)) return Value::Float(std::fabs(v.as_float()));
  return ev.CallOpByName("abs", args.original, args.span);  // tensors, or name= given
}

Result<Value> Append(BuiltinContext&, BoundArgs& args) {
  if (!args[0].is(ValueKind::kList)) return Fail(args, "the first argument must be a list, got " + Describe(args[0]));
  args[0].as_list().items.push_back(args[1]);
  return Value();
}

Result<Value> DictPart(BoundArgs& args, int part) {
  if (!args[0].is(ValueKind::kDict)) return Fail(args, "needs a dict, got " + Describe(args[0]));
  std::vector<Value> out;
  for (const auto& [k, v] : args[0].as_dict().entries()) {
    out.push_back(part == 0 ? k : part == 1 ? v : Value::NewList({k, v}));
  }
  return Value::NewList(std::move(out));
}

// The items of a host sequence, for enumerate, zip and list.
Result<std::vector<Value>> Items(const BoundArgs& args, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kList: return v.as_list().items;
    case ValueKind::kRange: {
      // Each number becomes a value: a range too long to hold is refused
      // rather than eating all memory.
      constexpr int64_t kMaxItems = int64_t{1} << 31;
      if (v.as_range().size() > kMaxItems) {
        return Status(Code::kResourceExhausted,
                      fmt::format("{}(): {} numbers are too many to hold in a list", args.def->name,
                                  v.as_range().size()),
                      args.span);
      }
      std::vector<Value> out;
      for (int64_t i = 0; i < v.as_range().size(); ++i) out.push_back(Value::Int(v.as_range().at(i)));
      return out;
    }
    case ValueKind::kTensor: {
      if (v.as_tensor().rank() == 0) break;
      std::vector<Value> out;
      for (int64_t i = 0; i < v.as_tensor().dim(0); ++i) out.push_back(Value::HostTensor(TensorRow(v.as_tensor(), i)));
      return out;
    }
    default: break;
  }
  return Fail(args, "cannot iterate over " + Describe(v));
}

// list(x): a new list of x's items, as Python's list(): a list's items, a
// range's numbers, a string's characters, a dict's keys, a host tensor's
// rows; list() is [].
Result<Value> ListOf(BuiltinContext&, BoundArgs& args) {
  const Value& v = args[0];
  if (v.is_none()) return Value::NewList({});
  std::vector<Value> out;
  if (v.is(ValueKind::kString)) {
    for (std::string_view c : Characters(v.as_string())) out.push_back(Value::Str(std::string(c)));
  } else if (v.is(ValueKind::kDict)) {
    for (const auto& [k, item] : v.as_dict().entries()) out.push_back(k);
  } else {
    TFG_ASSIGN_OR_RETURN(out, Items(args, v));
  }
  return Value::NewList(std::move(out));
}

Result<Value> Enumerate(BuiltinContext&, BoundArgs& args) {
  TFG_ASSIGN_OR_RETURN(std::vector<Value> items, Items(args, args[0]));
  TFG_ASSIGN_OR_RETURN(int64_t start, IntArg(args, 1));
  std::vector<Value> out;
  for (size_t i = 0; i < items.size(); ++i) {
    out.push_back(Value::NewList({Value::Int(start + static_cast<int64_t>(i)), items[i]}));
  }
  return Value::NewList(std::move(out));
}

Result<Value> Zip(BuiltinContext&, BoundArgs& args) {
  std::vector<std::vector<Value>> seqs;
  size_t n = SIZE_MAX;
  for (const Value& v : args.rest) {
    TFG_ASSIGN_OR_RETURN(std::vector<Value> items, Items(args, v));
    n = std::min(n, items.size());
    seqs.push_back(std::move(items));
  }
  std::vector<Value> out;
  for (size_t i = 0; !seqs.empty() && i < n; ++i) {
    std::vector<Value> row;
    for (const auto& s : seqs) row.push_back(s[i]);
    out.push_back(Value::NewList(std::move(row)));
  }
  return Value::NewList(std::move(out));
}

BuiltinParam Req(std::string name) { return BuiltinParam{std::move(name), std::nullopt}; }
BuiltinParam Opt(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v)}; }
BuiltinParam Kw(std::string name, Value v) { return BuiltinParam{std::move(name), std::move(v), true}; }

const BuiltinRegistrar kCoreBuiltins({
    {"print", {Kw("sep", Value::Str(" ")), Kw("end", Value::Str("\n"))},
     "Prints the values separated by spaces, then a newline. Tensors print in NumPy's layout; graph tensors "
     "print as <tensor \"name:0\" f32[?, 784]> (run them to see values). Prints nothing in check mode.",
     Print, /*variadic=*/true},
    {"str", {Req("x")}, "The text print() shows for x.",
     [](BuiltinContext&, BoundArgs& a) -> Result<Value> { return Value::Str(ToDisplayString(a[0])); }},
    {"int", {Req("x")}, "x as an int: floats truncate toward zero, strings parse, one-element tensors unwrap.",
     ToInt},
    {"float", {Req("x")}, "x as a float: ints widen, strings parse, one-element tensors unwrap.", ToFloat},
    {"len", {Req("x")},
     "Length of a list, string, dict or range; first dimension of a tensor (a graph tensor's must be known).",
     Len},
    {"range", {Req("start"), Opt("stop", Value()), Opt("step", Value())},
     "range(n), range(a, b), range(a, b, step): a host range for loops. With a graph tensor (or float) bound, "
     "builds the range op instead.",
     RangeBuiltin},
    {"min", {},
     "Smallest of host numbers (several, or one list of them); on a tensor the min reduction op "
     "(min(x, axis=1)); element-wise: minimum(a, b).",
     [](BuiltinContext& ev, BoundArgs& a) { return Extremum(ev, a, false); }, true, true},
    {"max", {},
     "Largest of host numbers (several, or one list of them); on a tensor the max reduction op "
     "(max(x, axis=1)); element-wise: maximum(a, b).",
     [](BuiltinContext& ev, BoundArgs& a) { return Extremum(ev, a, true); }, true, true},
    {"abs", {Req("x")}, "Absolute value of a host number; on tensors the abs op.", Abs, false, true},
    {"append", {Req("list"), Req("value")}, "Appends value to the list (in place).", Append},
    {"keys", {Req("dict")}, "The dict's keys, in insertion order.",
     [](BuiltinContext&, BoundArgs& a) { return DictPart(a, 0); }},
    {"values", {Req("dict")}, "The dict's values, in insertion order.",
     [](BuiltinContext&, BoundArgs& a) { return DictPart(a, 1); }},
    {"items", {Req("dict")}, "The dict's [key, value] pairs, in insertion order.",
     [](BuiltinContext&, BoundArgs& a) { return DictPart(a, 2); }},
    {"enumerate", {Req("items"), Opt("start", Value::Int(0))}, "[[start, x0], [start + 1, x1], ...].", Enumerate},
    {"list", {Opt("items", Value())},
     "A new list of the items: a list's, a range's numbers, a string's characters, a dict's keys, a host "
     "tensor's rows; list() is [].",
     ListOf},
    {"zip", {}, "[[a0, b0], [a1, b1], ...], as long as the shortest argument.", Zip, true},
});

}  // namespace
}  // namespace tfg
