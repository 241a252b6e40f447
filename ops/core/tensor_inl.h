// Template definitions for tensor.h.
#pragma once

#include "ops/core/dtype_traits.h"

namespace tfg {

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t(HostAllocator(), kDTypeOf<T>, TensorShape());
  t.data<T>()[0] = std::move(value);
  return t;
}

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values, TensorShape shape) {
  Tensor t(HostAllocator(), kDTypeOf<T>, std::move(shape));
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.num_elements(); ++i) {
    t.data<T>()[i] = values[i];
  }
  return t;
}

template <typename T>
Tensor Tensor::Vector(const std::vector<T>& values) {
  return FromVector(values, TensorShape({static_cast<int64_t>(values.size())}));
}

}  // namespace tfg
