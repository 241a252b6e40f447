// Tensors and dtypes between tfg and TensorFlow's TensorProto / DataType.
#pragma once

#include "ops/core/status.h"
#include "ops/core/tensor.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

// tfg's dtype for a TensorFlow DataType (reference types map to their
// value type); an Unimplemented error names the types tfg lacks.
Result<DType> FromTfDType(int tf_dtype);
tf::DataType ToTfDType(DType dtype);

// The tensor a TensorProto holds: tensor_content (raw little-endian
// bytes) or the typed value lists, where one value fills the shape.
Result<Tensor> FromTensorProto(const tf::TensorProto& proto);
// The same, taking tensor_content over instead of copying it (the tensor
// keeps the bytes alive): importing a frozen graph holds each weight once.
Result<Tensor> TakeTensorProto(tf::TensorProto& proto);
void ToTensorProto(const Tensor& t, tf::TensorProto* proto);

}  // namespace tfg::interop
