#include "interp/language/value_convert.h"

#include <cmath>
#include <limits>

#include "interp/language/value_walk.h"
#include "ops/core/dtype_traits.h"

namespace tfg {

namespace {

// What a (nested) list holds, gathered before choosing a dtype.
struct LeafKinds {
  bool has_bool = false;
  bool has_int = false;
  bool has_float = false;
  bool has_string = false;
  bool int_exceeds_i32 = false;
  std::optional<DType> tensor_dtype;
  bool mixed_tensor_dtypes = false;
};

constexpr int kMaxListDepth = 64;

bool FitsI32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// Fills `kinds` and returns the shape of `v`; error for ragged lists or
// elements that are not data.
Result<std::vector<int64_t>> Survey(const Value& v, LeafKinds& kinds, int depth) {
  if (depth > kMaxListDepth) return InvalidArgument("list nested more than {} levels deep", kMaxListDepth);
  switch (v.kind()) {
    case ValueKind::kBool: kinds.has_bool = true; return std::vector<int64_t>{};
    case ValueKind::kInt:
      kinds.has_int = true;
      if (!FitsI32(v.as_int())) kinds.int_exceeds_i32 = true;
      return std::vector<int64_t>{};
    case ValueKind::kFloat: kinds.has_float = true; return std::vector<int64_t>{};
    case ValueKind::kString: kinds.has_string = true; return std::vector<int64_t>{};
    case ValueKind::kRange: {
      const Range& r = v.as_range();
      kinds.has_int = true;
      if (r.size() > 0 && (!FitsI32(r.start) || !FitsI32(r.at(r.size() - 1)))) kinds.int_exceeds_i32 = true;
      return std::vector<int64_t>{r.size()};
    }
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      if (kinds.tensor_dtype && *kinds.tensor_dtype != t.dtype()) kinds.mixed_tensor_dtypes = true;
      kinds.tensor_dtype = t.dtype();
      return t.shape().dims();
    }
    case ValueKind::kList: break;
    default:
      return InvalidArgument("{} cannot be converted to a tensor", Describe(v));
  }
  const auto& items = v.as_list().items;
  std::vector<int64_t> inner;
  for (size_t i = 0; i < items.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> s, Survey(items[i], kinds, depth + 1));
    if (i == 0) {
      inner = std::move(s);
    } else if (s != inner) {
      return InvalidArgument("ragged list: element {} has shape {} but element 0 has shape {}", i,
                             TensorShape(s).ToString(), TensorShape(inner).ToString());
    }
  }
  std::vector<int64_t> shape{static_cast<int64_t>(items.size())};
  shape.insert(shape.end(), inner.begin(), inner.end());
  return shape;
}

Result<DType> ChooseDType(const LeafKinds& k) {
  bool numeric = k.has_int || k.has_float;
  if (k.mixed_tensor_dtypes) return InvalidArgument("list mixes host tensors of different dtypes");
  if (k.has_string && (numeric || k.has_bool)) return InvalidArgument("list mixes strings and other values");
  if (k.has_bool && numeric) return InvalidArgument("list mixes bools and numbers");
  if (k.tensor_dtype) return *k.tensor_dtype;
  if (k.has_string) return DType::kString;
  if (k.has_bool) return DType::kBool;
  if (k.has_float) return DType::kF32;
  if (k.has_int) return k.int_exceeds_i32 ? DType::kI64 : DType::kI32;
  return DType::kF32;  // empty list, as TensorFlow
}

template <typename T>
void Store(const Tensor& t, int64_t i, double d) {
  if constexpr (std::is_same_v<T, half>) {
    t.data<T>()[i] = half(static_cast<float>(d));
  } else {
    t.data<T>()[i] = static_cast<T>(d);
  }
}

Status IntRangeError(int64_t v, DType d) {
  return InvalidArgument("the int {} does not fit in {}", v, DTypeName(d));
}

// Writes one host scalar at flat position i of `t`.
Status StoreScalar(const Tensor& t, int64_t i, const Value& v) {
  DType d = t.dtype();
  switch (v.kind()) {
    case ValueKind::kString:
      if (d != DType::kString) return InvalidArgument("cannot convert the string \"{}\" to {}", v.as_string(), DTypeName(d));
      t.data<std::string>()[i] = v.as_string();
      return Status::OK();
    case ValueKind::kBool:
      if (d != DType::kBool) return InvalidArgument("cannot convert the bool {} to {}", v.as_bool() ? "true" : "false", DTypeName(d));
      t.data<bool>()[i] = v.as_bool();
      return Status::OK();
    case ValueKind::kInt: {
      int64_t x = v.as_int();
      if (d == DType::kI32) {
        if (!FitsI32(x)) return IntRangeError(x, d);
        t.data<int32_t>()[i] = static_cast<int32_t>(x);
        return Status::OK();
      }
      if (d == DType::kI64) {
        t.data<int64_t>()[i] = x;
        return Status::OK();
      }
      if (!IsFloat(d)) return InvalidArgument("cannot convert the int {} to {}", x, DTypeName(d));
      TFG_DISPATCH_NUMBER(d, T, Store<T>(t, i, static_cast<double>(x)));
      return Status::OK();
    }
    case ValueKind::kFloat:
      if (!IsFloat(d)) {
        return InvalidArgument("cannot convert the float {} to {}", FormatFloat(v.as_float()), DTypeName(d));
      }
      TFG_DISPATCH_NUMBER(d, T, Store<T>(t, i, v.as_float()));
      return Status::OK();
    default: return InvalidArgument("{} cannot be converted to a tensor", Describe(v));
  }
}

// Copies src's elements (already of t's dtype) to t from position `pos`.
void CopyElements(const Tensor& src, const Tensor& t, int64_t pos) {
  int64_t n = src.num_elements();
  if (src.dtype() == DType::kString) {
    for (int64_t j = 0; j < n; ++j) t.data<std::string>()[pos + j] = src.data<std::string>()[j];
  } else if (n > 0) {
    std::memcpy(static_cast<char*>(t.raw_data()) + pos * DTypeSize(t.dtype()), src.raw_data(),
                n * DTypeSize(t.dtype()));
  }
}

Status Fill(const Value& v, const Tensor& t, int64_t& pos) {
  switch (v.kind()) {
    case ValueKind::kList:
      for (const Value& item : v.as_list().items) TFG_RETURN_IF_ERROR(Fill(item, t, pos));
      return Status::OK();
    case ValueKind::kRange: {
      const Range& r = v.as_range();
      for (int64_t i = 0; i < r.size(); ++i) TFG_RETURN_IF_ERROR(StoreScalar(t, pos++, Value::Int(r.at(i))));
      return Status::OK();
    }
    case ValueKind::kTensor: {
      TFG_ASSIGN_OR_RETURN(Tensor src, ConvertTensor(v.as_tensor(), t.dtype()));
      CopyElements(src, t, pos);
      pos += src.num_elements();
      return Status::OK();
    }
    default: return StoreScalar(t, pos++, v);
  }
}

template <typename From, typename To>
Status CastLoop(const Tensor& src, const Tensor& dst) {
  const From* in = src.data<From>();
  To* out = dst.data<To>();
  for (int64_t i = 0; i < src.num_elements(); ++i) {
    if constexpr (std::is_same_v<From, half> || std::is_same_v<To, half>) {
      out[i] = static_cast<To>(static_cast<float>(in[i]));
    } else {
      if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
        if (static_cast<int64_t>(in[i]) < std::numeric_limits<To>::min() ||
            static_cast<int64_t>(in[i]) > std::numeric_limits<To>::max()) {
          return IntRangeError(static_cast<int64_t>(in[i]), kDTypeOf<To>);
        }
      }
      out[i] = static_cast<To>(in[i]);
    }
  }
  return Status::OK();
}

}  // namespace

bool IsHostData(const Value& v) {
  NestedWalk walk(v, /*dict_values=*/false);
  while (const Value* item = walk.Next()) {
    if (walk.cycle()) return false;  // a list inside itself is no tensor literal: it would nest forever
    switch (item->kind()) {
      case ValueKind::kBool:
      case ValueKind::kInt:
      case ValueKind::kFloat:
      case ValueKind::kString:
      case ValueKind::kRange:
      case ValueKind::kTensor:
      case ValueKind::kList: break;
      default: return false;
    }
  }
  return true;
}

Result<DType> DefaultDType(const Value& v) {
  LeafKinds kinds;
  TFG_RETURN_IF_ERROR(Survey(v, kinds, 0).status());
  return ChooseDType(kinds);
}

Result<Tensor> ToTensor(const Value& v, std::optional<DType> dtype) {
  if (v.is(ValueKind::kTensor)) return dtype ? ConvertTensor(v.as_tensor(), *dtype) : v.as_tensor();
  LeafKinds kinds;
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, Survey(v, kinds, 0));
  DType d;
  if (dtype) {
    d = *dtype;
  } else {
    TFG_ASSIGN_OR_RETURN(d, ChooseDType(kinds));
  }
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), d, TensorShape(std::move(dims))));
  int64_t pos = 0;
  TFG_RETURN_IF_ERROR(Fill(v, t, pos));
  return t;
}

Result<Tensor> ConvertTensor(const Tensor& t, DType to) {
  DType from = t.dtype();
  if (from == to) return t;
  bool ok = (IsNumeric(from) && IsFloat(to)) || (IsInteger(from) && IsInteger(to));
  if (!ok) {
    return InvalidArgument("cannot convert a host tensor of dtype {} to {} implicitly; use cast(x, {})",
                           DTypeName(from), DTypeName(to), DTypeName(to));
  }
  TFG_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(HostAllocator(), to, t.shape()));
  Status status;
  TFG_DISPATCH_NUMBER(from, From, TFG_DISPATCH_NUMBER(to, To, status = (CastLoop<From, To>(t, out))));
  TFG_RETURN_IF_ERROR(status);
  return out;
}

Value TensorElement(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kF16: return Value::Float(static_cast<float>(t.data<half>()[i]));
    case DType::kF32: return Value::Float(t.data<float>()[i]);
    case DType::kF64: return Value::Float(t.data<double>()[i]);
    case DType::kI32: return Value::Int(t.data<int32_t>()[i]);
    case DType::kI64: return Value::Int(t.data<int64_t>()[i]);
    case DType::kBool: return Value::Bool(t.data<bool>()[i]);
    case DType::kString: return Value::Str(t.data<std::string>()[i]);
    default: return Value();
  }
}

Result<Value> TensorToScalar(const Tensor& t) {
  if (t.num_elements() != 1) {
    return InvalidArgument("expected a tensor with one element, got {}", t.DebugString());
  }
  return TensorElement(t, 0);
}

Tensor TensorRow(const Tensor& t, int64_t i) {
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor row(HostAllocator(), t.dtype(), TensorShape(dims));
  int64_t n = row.num_elements();
  if (t.dtype() == DType::kString) {
    for (int64_t j = 0; j < n; ++j) row.data<std::string>()[j] = t.data<std::string>()[i * n + j];
  } else if (n > 0) {
    size_t bytes = n * DTypeSize(t.dtype());
    std::memcpy(row.raw_data(), static_cast<const char*>(t.raw_data()) + i * bytes, bytes);
  }
  return row;
}

Result<Tensor> ZerosTensor(DType dtype, const TensorShape& shape) {
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), dtype, shape));
  if (dtype != DType::kString && t.num_elements() > 0) std::memset(t.raw_data(), 0, t.bytes());
  return t;
}

std::optional<int64_t> AsHostInt(const Value& v) {
  if (v.is(ValueKind::kInt)) return v.as_int();
  if (v.is(ValueKind::kTensor) && IsInteger(v.as_tensor().dtype()) && v.as_tensor().num_elements() == 1) {
    return TensorElement(v.as_tensor(), 0).as_int();
  }
  return std::nullopt;
}

}  // namespace tfg
