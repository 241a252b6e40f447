// Attribute values between TensorFlow's AttrValue and tfg's, by the type
// the receiving side declares.
#pragma once

#include <string>

#include "ops/core/attr.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

// A TensorFlow attr as a tfg attr of type `type`; errors say what was found.
Result<AttrValue> FromTfAttr(const tf::AttrValue& v, AttrType type);
// A constant tensor (TensorFlow's input for an attr tfg keeps as an attr,
// such as Sum's reduction_indices) as a tfg attr of type `type`.
Result<AttrValue> FromConstTensor(const Tensor& t, AttrType type);
// A tfg attr as a TensorFlow attr of TensorFlow type `tf_type` ("int",
// "list(int)", "type", "shape", "tensor", ...).
Result<tf::AttrValue> ToTfAttr(const AttrValue& v, const std::string& tf_type);
// A tfg attr as the constant TensorFlow takes as an input instead (int
// lists and ints as i32, floats as `float_dtype`).
Result<Tensor> AttrAsTensor(const AttrValue& v, DType float_dtype);

PartialShape FromTfShape(const tf::TensorShapeProto& s);
void ToTfShape(const PartialShape& s, tf::TensorShapeProto* out);

}  // namespace tfg::interop
