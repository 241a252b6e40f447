// Indexing: Python-style on host lists, strings, ranges and dicts;
// strided_slice (or gather, for a tensor index) on tensors.
#include <limits>

#include "interp/language/evaluator.h"
#include "interp/language/value_convert.h"

namespace tfg {

namespace {

struct Sub {
  bool is_slice = false;
  bool is_ellipsis = false;
  Value index;              // plain index
  Value start, stop, step;  // slice parts; none when omitted
  SourceSpan span;
};

Status SubError(const Sub& sub, const std::string& msg) { return Status(Code::kInvalidArgument, msg, sub.span); }

Result<std::optional<int64_t>> SliceBound(const Value& v, const Sub& sub) {
  if (v.is_none()) return std::optional<int64_t>();
  if (auto i = AsHostInt(v)) return std::optional<int64_t>(*i);
  return SubError(sub, fmt::format("slice bounds must be host ints or none, got {}", Describe(v)));
}

// Python's slice.indices(n): the first position, the bound and the step of
// the positions a slice selects, and how many there are.
struct SliceIndices {
  int64_t begin = 0, end = 0, step = 1, count = 0;
};

Result<SliceIndices> Indices(const Sub& sub, int64_t n) {
  TFG_ASSIGN_OR_RETURN(auto start, SliceBound(sub.start, sub));
  TFG_ASSIGN_OR_RETURN(auto stop, SliceBound(sub.stop, sub));
  TFG_ASSIGN_OR_RETURN(auto step_opt, SliceBound(sub.step, sub));
  SliceIndices s;
  s.step = step_opt.value_or(1);
  if (s.step == 0) return SubError(sub, "slice step cannot be zero");
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt, int64_t lo, int64_t hi) {
    if (!v) return dflt;
    __int128 x = *v < 0 ? static_cast<__int128>(*v) + n : *v;
    return static_cast<int64_t>(std::clamp<__int128>(x, lo, hi));
  };
  s.begin = s.step > 0 ? clamp(start, 0, 0, n) : clamp(start, n - 1, -1, n - 1);
  s.end = s.step > 0 ? clamp(stop, n, 0, n) : clamp(stop, -1, -1, n - 1);
  const __int128 span = s.step > 0 ? static_cast<__int128>(s.end) - s.begin : static_cast<__int128>(s.begin) - s.end;
  const __int128 stride = s.step > 0 ? s.step : -static_cast<__int128>(s.step);
  s.count = span <= 0 ? 0 : static_cast<int64_t>((span + stride - 1) / stride);
  return s;
}

Result<std::vector<int64_t>> SlicePositions(const Sub& sub, int64_t n) {
  TFG_ASSIGN_OR_RETURN(SliceIndices s, Indices(sub, n));
  std::vector<int64_t> out;
  for (int64_t k = 0, i = s.begin; k < s.count; ++k, i += s.step) out.push_back(i);
  return out;
}

// A slice of a range is a range, as in Python (range(10**18)[1:] is not
// made into a list of its numbers).
Result<Value> SliceRange(const Range& r, const Sub& sub) {
  TFG_ASSIGN_OR_RETURN(SliceIndices s, Indices(sub, r.size()));
  Range out;
  if (__builtin_mul_overflow(r.step, s.step, &out.step)) return SubError(sub, "the sliced range's step overflows");
  auto fits = [](__int128 v) {
    return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
  };
  // Python's bounds, start + begin * step and start + end * step, where they
  // fit; else the first number and just past the last.
  const __int128 first = static_cast<__int128>(r.start) + static_cast<__int128>(s.begin) * r.step;
  out.start = fits(first) ? static_cast<int64_t>(first) : r.start;  // fits whenever count > 0
  const __int128 bound = static_cast<__int128>(r.start) + static_cast<__int128>(s.end) * r.step;
  const __int128 past_last = s.count == 0 ? static_cast<__int128>(out.start)
                                          : static_cast<__int128>(out.start) +
                                                static_cast<__int128>(s.count - 1) * out.step + (out.step > 0 ? 1 : -1);
  const __int128 stop = fits(bound) ? bound : past_last;
  if (!fits(stop)) return SubError(sub, "the sliced range does not fit 64-bit ints");
  out.stop = static_cast<int64_t>(stop);
  return Value::RangeOf(out);
}

Result<int64_t> Position(const Sub& sub, int64_t n, const char* what) {
  auto i = AsHostInt(sub.index);
  if (!i) return SubError(sub, fmt::format("{} indices must be ints, got {}", what, Describe(sub.index)));
  int64_t p = *i < 0 ? *i + n : *i;
  if (p < 0 || p >= n) {
    return Status(Code::kOutOfRange, fmt::format("{} index {} out of range (length {})", what, *i, n), sub.span);
  }
  return p;
}

Result<Value> IndexSequence(const Value& obj, const Sub& sub) {
  std::vector<std::string_view> chars;
  if (obj.is(ValueKind::kString)) chars = Characters(obj.as_string());
  int64_t n = obj.is(ValueKind::kList)     ? static_cast<int64_t>(obj.as_list().items.size())
              : obj.is(ValueKind::kString) ? static_cast<int64_t>(chars.size())
                                           : obj.as_range().size();
  auto element = [&](int64_t p) -> Value {
    if (obj.is(ValueKind::kList)) return obj.as_list().items[p];
    if (obj.is(ValueKind::kString)) return Value::Str(std::string(chars[p]));
    return Value::Int(obj.as_range().at(p));
  };
  if (!sub.is_slice) {
    TFG_ASSIGN_OR_RETURN(int64_t p, Position(sub, n, KindName(obj.kind())));
    return element(p);
  }
  if (obj.is(ValueKind::kRange)) return SliceRange(obj.as_range(), sub);
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> positions, SlicePositions(sub, n));
  if (obj.is(ValueKind::kString)) {
    std::string out;
    for (int64_t p : positions) out += chars[p];
    return Value::Str(std::move(out));
  }
  std::vector<Value> items;
  for (int64_t p : positions) items.push_back(element(p));
  return Value::NewList(std::move(items));
}

// strided_slice's attrs for the subscripts, with TensorFlow's masks.
Result<CallArgs> StridedSliceArgs(const Value& obj, const std::vector<Sub>& subs) {
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, shrink = 0, new_axis = 0, ellipsis = 0;
  for (size_t j = 0; j < subs.size(); ++j) {
    const Sub& sub = subs[j];
    int64_t bit = int64_t{1} << j;
    if (sub.is_ellipsis) {
      if (ellipsis != 0) return SubError(sub, "an index can have only one '...'");
      ellipsis |= bit;
      begin.push_back(0), end.push_back(0), strides.push_back(1);
      continue;
    }
    if (!sub.is_slice) {
      if (sub.index.is_none()) {
        new_axis |= bit;
        begin.push_back(0), end.push_back(0), strides.push_back(1);
        continue;
      }
      auto i = AsHostInt(sub.index);
      if (!i) {
        return SubError(sub, fmt::format("tensor subscripts must be host ints, slices or none; got {} "
                                         "(a tensor index works alone: x[idx] gathers)",
                                         Describe(sub.index)));
      }
      begin.push_back(*i), end.push_back(*i + 1), strides.push_back(1);
      shrink |= bit;
      continue;
    }
    TFG_ASSIGN_OR_RETURN(auto b, SliceBound(sub.start, sub));
    TFG_ASSIGN_OR_RETURN(auto e, SliceBound(sub.stop, sub));
    TFG_ASSIGN_OR_RETURN(auto s, SliceBound(sub.step, sub));
    if (s && *s == 0) return SubError(sub, "slice step cannot be zero");
    if (!b) begin_mask |= bit;
    if (!e) end_mask |= bit;
    begin.push_back(b.value_or(0)), end.push_back(e.value_or(0)), strides.push_back(s.value_or(1));
  }
  auto ints = [](const std::vector<int64_t>& v) {
    std::vector<Value> items;
    for (int64_t x : v) items.push_back(Value::Int(x));
    return Value::NewList(std::move(items));
  };
  CallArgs args;
  args.Add(obj);
  args.AddKeyword("begin", ints(begin));
  args.AddKeyword("end", ints(end));
  args.AddKeyword("strides", ints(strides));
  args.AddKeyword("begin_mask", Value::Int(begin_mask));
  args.AddKeyword("end_mask", Value::Int(end_mask));
  args.AddKeyword("shrink_axis_mask", Value::Int(shrink));
  args.AddKeyword("new_axis_mask", Value::Int(new_axis));
  args.AddKeyword("ellipsis_mask", Value::Int(ellipsis));
  return args;
}

// x[idx] with a tensor (or list) of indices: gather along axis 0.
bool IsGatherIndex(const std::vector<Sub>& subs) {
  if (subs.size() != 1 || subs[0].is_slice || subs[0].is_ellipsis) return false;
  const Value& i = subs[0].index;
  if (i.is_graph() || i.is(ValueKind::kList)) return true;
  return i.is(ValueKind::kTensor) && i.as_tensor().rank() > 0;
}

}  // namespace

Result<Value> Evaluator::EvalIndex(const ast::Index& e, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value obj, Eval(*e.object, env));
  std::vector<Sub> subs;
  for (const ast::Subscript& s : e.subscripts) {
    Sub sub;
    sub.is_slice = s.is_slice;
    sub.is_ellipsis = s.is_ellipsis;
    sub.span = s.span.valid() ? s.span : e.span;
    if (s.is_ellipsis) {
      // Nothing to evaluate.
    } else if (s.is_slice) {
      for (auto [part, expr] : {std::pair{&sub.start, s.start.get()}, {&sub.stop, s.stop.get()},
                                {&sub.step, s.step.get()}}) {
        if (!expr) continue;
        TFG_ASSIGN_OR_RETURN(*part, Eval(*expr, env));
      }
    } else {
      TFG_ASSIGN_OR_RETURN(sub.index, Eval(*s.index, env));
    }
    subs.push_back(std::move(sub));
  }
  if (obj.is_graph() || obj.is(ValueKind::kTensor)) {
    if (IsGatherIndex(subs)) {
      CallArgs args;
      args.Add(obj);
      args.Add(subs[0].index, subs[0].span);
      return CallOpByName("gather", std::move(args), e.span);
    }
    if (obj.is(ValueKind::kTensor) && obj.as_tensor().rank() == 0 && !subs.empty()) {
      return Status(Code::kInvalidArgument, "a scalar host tensor cannot be indexed", e.span);
    }
    auto args = StridedSliceArgs(obj, subs);
    if (!args.ok()) return args.status();
    return CallOpByName("strided_slice", std::move(*args), e.span);
  }
  bool sequence = obj.is(ValueKind::kList) || obj.is(ValueKind::kString) || obj.is(ValueKind::kRange);
  if ((sequence || obj.is(ValueKind::kDict)) && subs.size() != 1) {
    return Status(Code::kInvalidArgument, fmt::format("{} takes one subscript, got {}", Describe(obj), subs.size()),
                  e.span);
  }
  if ((sequence || obj.is(ValueKind::kDict)) && subs[0].is_ellipsis) {
    return SubError(subs[0], fmt::format("'...' indexes tensors, not {}", Describe(obj)));
  }
  if (sequence) return IndexSequence(obj, subs[0]);
  if (obj.is(ValueKind::kDict)) {
    if (subs[0].is_slice) return SubError(subs[0], "a dict cannot be sliced");
    if (const Value* v = obj.as_dict().Find(subs[0].index)) return *v;
    return Status(Code::kNotFound, fmt::format("key {} not in the dict", Repr(subs[0].index)), subs[0].span);
  }
  return Status(Code::kInvalidArgument, fmt::format("{} cannot be indexed", Describe(obj)), e.object->span);
}

Status Evaluator::AssignIndex(const ast::Index& target, Value value, const std::shared_ptr<Env>& env) {
  TFG_ASSIGN_OR_RETURN(Value obj, Eval(*target.object, env));
  if (target.subscripts.size() != 1 || target.subscripts[0].is_slice || target.subscripts[0].is_ellipsis) {
    if (obj.is(ValueKind::kList) || obj.is(ValueKind::kDict)) {
      return Status(Code::kUnimplemented, "assigning to a slice is not supported yet", target.span);
    }
  }
  if (obj.is(ValueKind::kDict)) {
    TFG_ASSIGN_OR_RETURN(Value key, Eval(*target.subscripts[0].index, env));
    Status s = obj.as_dict().Set(key, std::move(value));
    return s.ok() ? s : s.WithSpan(target.subscripts[0].span);
  }
  if (obj.is(ValueKind::kList)) {
    Sub sub;
    sub.span = target.subscripts[0].span.valid() ? target.subscripts[0].span : target.span;
    TFG_ASSIGN_OR_RETURN(sub.index, Eval(*target.subscripts[0].index, env));
    auto& items = obj.as_list().items;
    TFG_ASSIGN_OR_RETURN(int64_t p, Position(sub, static_cast<int64_t>(items.size()), "list"));
    items[p] = std::move(value);
    return Status::OK();
  }
  std::string hint = obj.is_graph() ? "; use assign(var, value) to change a variable"
                     : obj.is(ValueKind::kTensor) ? " (host tensors are immutable)"
                                                  : "";
  return Status(Code::kInvalidArgument, fmt::format("cannot assign to an element of {}{}", Describe(obj), hint),
                target.span);
}

}  // namespace tfg
