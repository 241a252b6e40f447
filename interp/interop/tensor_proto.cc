#include "interp/interop/tensor_proto.h"

#include <cstring>
#include <fmt/format.h>

#include "ops/core/allocator.h"

namespace tfg::interop {
namespace {

Status Bad(const std::string& why) { return Status(Code::kInvalidArgument, "TensorProto: " + why); }

// Copies the typed value list `vals` into `t`, repeating a single value.
template <typename T, typename Vals>
Status FillFrom(const Vals& vals, Tensor& t) {
  int64_t n = t.num_elements();
  T* out = t.data<T>();
  if (vals.size() == 0) {
    std::fill(out, out + n, T());
    return Status::OK();
  }
  if (vals.size() != n && vals.size() != 1) {
    return Bad(fmt::format("{} values for a tensor of {} elements", vals.size(), n));
  }
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(vals[vals.size() == 1 ? 0 : static_cast<int>(i)]);
  return Status::OK();
}

Result<TensorShape> ShapeOf(const tf::TensorShapeProto& s) {
  if (s.unknown_rank()) return Bad("a constant of unknown rank");
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (const auto& d : s.dim()) {
    if (d.size() < 0) return Bad("a constant with an unknown dimension");
    if (d.size() > 0 && n > (int64_t{1} << 40) / d.size()) return Bad("a constant of over 2**40 elements");
    n *= d.size();
    dims.push_back(d.size());
  }
  return TensorShape(dims);
}

}  // namespace

Result<DType> FromTfDType(int tf_dtype) {
  switch (tf_dtype > 100 ? tf_dtype - 100 : tf_dtype) {
    case tf::DT_FLOAT: return DType::kF32;
    case tf::DT_DOUBLE: return DType::kF64;
    case tf::DT_INT32: return DType::kI32;
    case tf::DT_INT64: return DType::kI64;
    case tf::DT_BOOL: return DType::kBool;
    case tf::DT_STRING: return DType::kString;
    case tf::DT_HALF: return DType::kF16;
    default: break;
  }
  std::string name = tf::DataType_IsValid(tf_dtype) ? tf::DataType_Name(static_cast<tf::DataType>(tf_dtype))
                                                     : fmt::format("DataType {}", tf_dtype);
  return Status(Code::kUnimplemented,
                fmt::format("TensorFlow dtype {} is not supported (tfg has f16 f32 f64 i32 i64 bool string)", name));
}

tf::DataType ToTfDType(DType dtype) {
  switch (dtype) {
    case DType::kF16: return tf::DT_HALF;
    case DType::kF32: return tf::DT_FLOAT;
    case DType::kF64: return tf::DT_DOUBLE;
    case DType::kI32: return tf::DT_INT32;
    case DType::kI64: return tf::DT_INT64;
    case DType::kBool: return tf::DT_BOOL;
    case DType::kString: return tf::DT_STRING;
    default: return tf::DT_INVALID;
  }
}

Result<Tensor> FromTensorProto(const tf::TensorProto& proto) {
  TFG_ASSIGN_OR_RETURN(DType dtype, FromTfDType(proto.dtype()));
  TFG_ASSIGN_OR_RETURN(TensorShape shape, ShapeOf(proto.tensor_shape()));
  if (dtype != DType::kString && !proto.tensor_content().empty()) {
    size_t want = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
    if (proto.tensor_content().size() != want) {
      return Bad(fmt::format("tensor_content has {} bytes, the shape needs {}", proto.tensor_content().size(), want));
    }
    TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), dtype, shape));
    if (want > 0) std::memcpy(t.raw_data(), proto.tensor_content().data(), want);
    return t;
  }
  TFG_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(HostAllocator(), dtype, shape));
  Status s;
  switch (dtype) {
    case DType::kF32: s = FillFrom<float>(proto.float_val(), t); break;
    case DType::kF64: s = FillFrom<double>(proto.double_val(), t); break;
    case DType::kI32: s = FillFrom<int32_t>(proto.int_val(), t); break;
    case DType::kI64: s = FillFrom<int64_t>(proto.int64_val(), t); break;
    case DType::kBool: s = FillFrom<bool>(proto.bool_val(), t); break;
    case DType::kF16: s = FillFrom<uint16_t>(proto.half_val(), t); break;
    case DType::kString: s = FillFrom<std::string>(proto.string_val(), t); break;
    default: return Bad("unsupported dtype");
  }
  if (!s.ok()) return s;
  return t;
}

Result<Tensor> TakeTensorProto(tf::TensorProto& proto) {
  Result<DType> dtype = FromTfDType(proto.dtype());
  // Small ones (and strings) are copied: nothing to gain.
  if (!dtype.ok() || *dtype == DType::kString || proto.tensor_content().size() < 4096) return FromTensorProto(proto);
  TFG_ASSIGN_OR_RETURN(TensorShape shape, ShapeOf(proto.tensor_shape()));
  size_t want = static_cast<size_t>(shape.num_elements()) * DTypeSize(*dtype);
  if (proto.tensor_content().size() != want) return FromTensorProto(proto);  // its error
  std::shared_ptr<std::string> bytes(proto.release_tensor_content());
  void* data = bytes->data();
  auto buffer = std::make_shared<Buffer>(data, want, std::shared_ptr<const void>(bytes, bytes.get()));
  return Tensor(*dtype, shape, std::move(buffer));
}

void ToTensorProto(const Tensor& t, tf::TensorProto* proto) {
  proto->set_dtype(ToTfDType(t.dtype()));
  for (int i = 0; i < t.rank(); ++i) proto->mutable_tensor_shape()->add_dim()->set_size(t.dim(i));
  if (t.dtype() == DType::kString) {
    for (int64_t i = 0; i < t.num_elements(); ++i) proto->add_string_val(t.data<std::string>()[i]);
    return;
  }
  if (t.bytes() > 0) proto->set_tensor_content(static_cast<const char*>(t.raw_data()), t.bytes());
}

}  // namespace tfg::interop
