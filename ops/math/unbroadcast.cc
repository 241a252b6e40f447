// unbroadcast(grad, like): the gradient of NumPy broadcasting. Sums `grad`
// over the dimensions along which `like` was broadcast, giving a tensor of
// `like`'s run-time shape. Built by GradContext::Unbroadcast.
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Output strides of `like` aligned to grad's dims (0 where broadcast).
Result<std::vector<int64_t>> AlignedStrides(const TensorShape& grad, const TensorShape& like) {
  if (like.rank() > grad.rank()) {
    return InvalidArgument("unbroadcast: {} is not a broadcast of {}", grad.ToString(), like.ToString());
  }
  std::vector<int64_t> strides(grad.rank(), 0);
  int64_t stride = 1;
  for (int i = like.rank() - 1; i >= 0; --i) {
    int g = grad.rank() - like.rank() + i;
    if (like.dim(i) == grad.dim(g)) {
      strides[g] = like.dim(i) == 1 ? 0 : stride;
    } else if (like.dim(i) != 1) {
      return InvalidArgument("unbroadcast: {} is not a broadcast of {}", grad.ToString(), like.ToString());
    }
    stride *= like.dim(i);
  }
  return strides;
}

template <typename T>
void SumInto(const Tensor& grad, const std::vector<int64_t>& strides, Tensor* out) {
  using Acc = std::conditional_t<std::is_same_v<T, half>, float, T>;
  std::vector<Acc> acc(out->num_elements(), Acc(0));
  const T* g = grad.data<T>();
  int rank = grad.rank();
  int64_t n = grad.num_elements();
  if (n == 0) {
    for (int64_t i = 0; i < out->num_elements(); ++i) out->data<T>()[i] = T(0);
    return;
  }
  int64_t inner = rank ? grad.dim(rank - 1) : 1;
  int64_t inner_stride = rank ? strides[rank - 1] : 0;
  std::vector<int64_t> index(rank, 0);
  for (int64_t base = 0; base < n; base += inner) {
    int64_t off = 0;
    for (int d = 0; d < rank - 1; ++d) off += index[d] * strides[d];
    if (inner_stride == 0) {
      Acc s = 0;
      for (int64_t j = 0; j < inner; ++j) s += static_cast<Acc>(g[base + j]);
      acc[off] += s;
    } else {
      for (int64_t j = 0; j < inner; ++j) acc[off + j] += static_cast<Acc>(g[base + j]);
    }
    for (int d = rank - 2; d >= 0; --d) {  // odometer over the outer dims
      if (++index[d] < grad.dim(d)) break;
      index[d] = 0;
    }
  }
  for (int64_t i = 0; i < out->num_elements(); ++i) out->data<T>()[i] = static_cast<T>(acc[i]);
}

class UnbroadcastKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& grad = ctx.input(0);
    const TensorShape& like = ctx.input(1).shape();
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> strides, AlignedStrides(grad.shape(), like));
    if (grad.shape() == like) {
      ctx.set_output(0, grad);
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, like));
    switch (grad.dtype()) {
      case DType::kF16: SumInto<half>(grad, strides, out); break;
      case DType::kF32: SumInto<float>(grad, strides, out); break;
      case DType::kF64: SumInto<double>(grad, strides, out); break;
      default: return InvalidArgument("unbroadcast: unsupported dtype {}", DTypeName(grad.dtype()));
    }
    return Status::OK();
  }
};

// Linear in grad; its adjoint broadcasts back (ops/array/broadcast_like.cc).
// Needed for second derivatives through broadcasting binary ops.
Status UnbroadcastGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("broadcast_like", {grad, g.input(0)}));
  return Status::OK();
}

TFG_REGISTER_OP(OpDefBuilder("unbroadcast")
                    .Input("grad", "T")
                    .Input("like", "T")
                    .Output("out", "T")
                    .TypeAttr("T", FloatTypes())
                    .SetShapeFn([](ShapeContext& c) {
                      c.set_output(0, c.input(1));
                      return Status::OK();
                    })
                    .SetGradFn(UnbroadcastGrad)
                    .Doc("Sums `grad` over the dimensions along which `like` was broadcast, giving a "
                         "tensor of `like`'s shape: the gradient of NumPy broadcasting."));
TFG_REGISTER_KERNEL(KernelDef("unbroadcast", DeviceType::kCpu).Create<UnbroadcastKernel>());

}  // namespace
}  // namespace tfg
