#include "ops/nn/nn_util.h"

#include "ops/autodiff/gradients.h"

namespace tfg::nn {

std::vector<float> Widen(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.num_elements()));
  const half* src = t.data<half>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(src[i]);
  return v;
}

void Narrow(const std::vector<float>& v, Tensor* t) {
  half* dst = t->data<half>();
  for (size_t i = 0; i < v.size(); ++i) dst[i] = static_cast<half>(v[i]);
}

GradFn NoSecondDerivative(std::string op) {
  return [op = std::move(op)](GradContext&) -> Status {
    return Unimplemented("{}: second derivatives through this op are not supported yet", op);
  };
}

}  // namespace tfg::nn
