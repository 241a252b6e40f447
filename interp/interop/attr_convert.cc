#include "interp/interop/attr_convert.h"

#include <fmt/format.h>

#include "interp/interop/tensor_proto.h"
#include "ops/core/allocator.h"

namespace tfg::interop {
namespace {

Status Mismatch(const std::string& found, AttrType type) {
  return Status(Code::kInvalidArgument,
                fmt::format("expected {} but the GraphDef has {}", AttrTypeName(type), found));
}

std::string Describe(const tf::AttrValue& v) {
  switch (v.value_case()) {
    case tf::AttrValue::kS: return "a string";
    case tf::AttrValue::kI: return "an int";
    case tf::AttrValue::kF: return "a float";
    case tf::AttrValue::kB: return "a bool";
    case tf::AttrValue::kType: return "a dtype";
    case tf::AttrValue::kShape: return "a shape";
    case tf::AttrValue::kTensor: return "a tensor";
    case tf::AttrValue::kList: return "a list";
    case tf::AttrValue::kFunc: return "a function";
    default: return "no value";
  }
}

Result<std::vector<int64_t>> IntsOf(const Tensor& t) {
  std::vector<int64_t> out;
  if (t.dtype() == DType::kI32) {
    for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DType::kI64) {
    for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.data<int64_t>()[i]);
  } else {
    return Status(Code::kInvalidArgument, fmt::format("expected an integer constant, got {}", DTypeName(t.dtype())));
  }
  return out;
}

}  // namespace

PartialShape FromTfShape(const tf::TensorShapeProto& s) {
  if (s.unknown_rank()) return PartialShape::Unknown();
  std::vector<int64_t> dims;
  for (const auto& d : s.dim()) dims.push_back(d.size() < 0 ? PartialShape::kUnknown : d.size());
  return PartialShape(std::move(dims));
}

void ToTfShape(const PartialShape& s, tf::TensorShapeProto* out) {
  if (!s.known_rank()) {
    out->set_unknown_rank(true);
    return;
  }
  for (int64_t d : s.dims()) out->add_dim()->set_size(d < 0 ? -1 : d);
}

Result<AttrValue> FromTfAttr(const tf::AttrValue& v, AttrType type) {
  using V = tf::AttrValue;
  switch (type) {
    case AttrType::kInt:
      if (v.value_case() == V::kI) return AttrValue(int64_t{v.i()});
      break;
    case AttrType::kFloat:
      if (v.value_case() == V::kF) return AttrValue(double{v.f()});
      if (v.value_case() == V::kI) return AttrValue(static_cast<double>(v.i()));
      break;
    case AttrType::kBool:
      if (v.value_case() == V::kB) return AttrValue(v.b());
      break;
    case AttrType::kString:
      if (v.value_case() == V::kS) return AttrValue(v.s());
      break;
    case AttrType::kType:
      if (v.value_case() == V::kType) {
        TFG_ASSIGN_OR_RETURN(DType d, FromTfDType(v.type()));
        return AttrValue(d);
      }
      break;
    case AttrType::kShape:
      if (v.value_case() == V::kShape) return AttrValue(FromTfShape(v.shape()));
      break;
    case AttrType::kTensor:
      if (v.value_case() == V::kTensor) {
        TFG_ASSIGN_OR_RETURN(Tensor t, FromTensorProto(v.tensor()));
        return AttrValue(std::move(t));
      }
      break;
    default:
      if (v.value_case() != V::kList && v.value_case() != V::VALUE_NOT_SET) break;
      const V::ListValue& l = v.list();
      if (type == AttrType::kIntList) return AttrValue(std::vector<int64_t>(l.i().begin(), l.i().end()));
      if (type == AttrType::kFloatList) return AttrValue(std::vector<double>(l.f().begin(), l.f().end()));
      if (type == AttrType::kStringList) return AttrValue(std::vector<std::string>(l.s().begin(), l.s().end()));
      if (type == AttrType::kShapeList) {
        std::vector<PartialShape> shapes;
        for (const auto& s : l.shape()) shapes.push_back(FromTfShape(s));
        return AttrValue(std::move(shapes));
      }
      if (type == AttrType::kTypeList) {
        std::vector<DType> types;
        for (int t : l.type()) {
          TFG_ASSIGN_OR_RETURN(DType d, FromTfDType(t));
          types.push_back(d);
        }
        return AttrValue(std::move(types));
      }
      break;
  }
  return Mismatch(Describe(v), type);
}

Result<AttrValue> FromConstTensor(const Tensor& t, AttrType type) {
  switch (type) {
    case AttrType::kTensor: return AttrValue(t);
    case AttrType::kIntList: {
      TFG_ASSIGN_OR_RETURN(std::vector<int64_t> ints, IntsOf(t));
      return AttrValue(std::move(ints));
    }
    case AttrType::kInt: {
      TFG_ASSIGN_OR_RETURN(std::vector<int64_t> ints, IntsOf(t));
      if (ints.size() != 1) return Mismatch(fmt::format("a constant of {} values", ints.size()), type);
      return AttrValue(ints[0]);
    }
    case AttrType::kFloat:
      if (t.num_elements() == 1 && t.dtype() == DType::kF32) return AttrValue(double{t.data<float>()[0]});
      if (t.num_elements() == 1 && t.dtype() == DType::kF64) return AttrValue(t.data<double>()[0]);
      if (t.num_elements() == 1 && (t.dtype() == DType::kI32 || t.dtype() == DType::kI64)) {
        TFG_ASSIGN_OR_RETURN(std::vector<int64_t> ints, IntsOf(t));
        return AttrValue(static_cast<double>(ints[0]));
      }
      break;
    case AttrType::kBool:
      if (t.num_elements() == 1 && t.dtype() == DType::kBool) return AttrValue(t.data<bool>()[0]);
      break;
    case AttrType::kString:
      if (t.num_elements() == 1 && t.dtype() == DType::kString) return AttrValue(t.data<std::string>()[0]);
      break;
    default: break;
  }
  return Mismatch(fmt::format("a {} constant of shape {}", DTypeName(t.dtype()), t.shape().ToString()), type);
}

Result<tf::AttrValue> ToTfAttr(const AttrValue& v, const std::string& tf_type) {
  tf::AttrValue out;
  auto bad = [&] {
    return Status(Code::kInvalidArgument,
                  fmt::format("cannot write {} as a TensorFlow {}", AttrValueToString(v), tf_type));
  };
  if (tf_type == "int") {
    if (auto* i = std::get_if<int64_t>(&v)) { out.set_i(*i); return out; }
  } else if (tf_type == "float") {
    if (auto* d = std::get_if<double>(&v)) { out.set_f(static_cast<float>(*d)); return out; }
    if (auto* i = std::get_if<int64_t>(&v)) { out.set_f(static_cast<float>(*i)); return out; }
  } else if (tf_type == "bool") {
    if (auto* b = std::get_if<bool>(&v)) { out.set_b(*b); return out; }
  } else if (tf_type == "string") {
    if (auto* s = std::get_if<std::string>(&v)) { out.set_s(*s); return out; }
  } else if (tf_type == "type") {
    if (auto* d = std::get_if<DType>(&v)) { out.set_type(ToTfDType(*d)); return out; }
  } else if (tf_type == "shape") {
    if (auto* s = std::get_if<PartialShape>(&v)) { ToTfShape(*s, out.mutable_shape()); return out; }
  } else if (tf_type == "tensor") {
    if (auto* t = std::get_if<Tensor>(&v)) { ToTensorProto(*t, out.mutable_tensor()); return out; }
  } else if (tf_type == "list(int)") {
    if (auto* l = std::get_if<std::vector<int64_t>>(&v)) {
      out.mutable_list();
      for (int64_t i : *l) out.mutable_list()->add_i(i);
      return out;
    }
    if (auto* i = std::get_if<int64_t>(&v)) { out.mutable_list()->add_i(*i); return out; }
  } else if (tf_type == "list(float)") {
    if (auto* l = std::get_if<std::vector<double>>(&v)) {
      out.mutable_list();
      for (double d : *l) out.mutable_list()->add_f(static_cast<float>(d));
      return out;
    }
  } else if (tf_type == "list(type)") {
    if (auto* l = std::get_if<std::vector<DType>>(&v)) {
      out.mutable_list();
      for (DType d : *l) out.mutable_list()->add_type(ToTfDType(d));
      return out;
    }
  } else if (tf_type == "list(shape)") {
    if (auto* l = std::get_if<std::vector<PartialShape>>(&v)) {
      out.mutable_list();
      for (const PartialShape& s : *l) ToTfShape(s, out.mutable_list()->add_shape());
      return out;
    }
  } else if (tf_type == "list(string)") {
    if (auto* l = std::get_if<std::vector<std::string>>(&v)) {
      out.mutable_list();
      for (const std::string& s : *l) out.mutable_list()->add_s(s);
      return out;
    }
  }
  return bad();
}

Result<Tensor> AttrAsTensor(const AttrValue& v, DType float_dtype) {
  if (auto* t = std::get_if<Tensor>(&v)) return *t;
  if (auto* i = std::get_if<int64_t>(&v)) return Tensor::Scalar<int32_t>(static_cast<int32_t>(*i));
  if (auto* b = std::get_if<bool>(&v)) return Tensor::Scalar<bool>(*b);
  if (auto* s = std::get_if<std::string>(&v)) return Tensor::Scalar<std::string>(*s);
  if (auto* d = std::get_if<double>(&v)) {
    if (float_dtype == DType::kF64) return Tensor::Scalar<double>(*d);
    if (float_dtype == DType::kI32) return Tensor::Scalar<int32_t>(static_cast<int32_t>(*d));
    if (float_dtype == DType::kI64) return Tensor::Scalar<int64_t>(static_cast<int64_t>(*d));
    return Tensor::Scalar<float>(static_cast<float>(*d));
  }
  if (auto* l = std::get_if<std::vector<int64_t>>(&v)) {
    std::vector<int32_t> ints(l->begin(), l->end());
    return Tensor::Vector<int32_t>(ints);
  }
  return Status(Code::kUnimplemented,
                fmt::format("cannot write {} as a TensorFlow constant input", AttrValueToString(v)));
}

}  // namespace tfg::interop
