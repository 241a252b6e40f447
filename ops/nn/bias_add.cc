// bias_add(value, bias): adds the vector `bias` along the last dimension of
// `value` (channels last, TensorFlow's NHWC BiasAdd). Gradient helper:
//   bias_add_grad(out_backprop) -> the sum over every dimension but the last.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/forward_input.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"
#include "ops/nn/bias_add.h"

namespace tfg {
namespace {

// Rows summed per unit of parallel work in bias_add_grad.
constexpr int64_t kRowsPerBlock = 256;

int64_t RowsOf(const TensorShape& shape, int64_t channels) {
  return channels == 0 ? 0 : shape.num_elements() / channels;
}

}  // namespace

namespace nn {

Result<BiasAddRows> BiasAddLayout(const TensorShape& value, const TensorShape& bias) {
  if (value.rank() < 1 || bias.rank() != 1 || bias.dim(0) != value.dim(value.rank() - 1)) {
    return InvalidArgument("bias_add: bias of shape {} does not match the last dimension of value {}",
                           bias.ToString(), value.ToString());
  }
  return BiasAddRows{RowsOf(value, bias.dim(0)), bias.dim(0)};
}

Result<BiasAddRows> BiasAddGradLayout(const TensorShape& out_backprop) {
  if (out_backprop.rank() < 1) {
    return InvalidArgument("bias_add_grad: out_backprop must have rank >= 1, got a scalar");
  }
  const int64_t c = out_backprop.dim(out_backprop.rank() - 1);
  return BiasAddRows{RowsOf(out_backprop, c), c};
}

}  // namespace nn

namespace {

Status BiasAddShapeFn(ShapeContext& c) {
  const PartialShape& x = c.input(0);
  const PartialShape& bias = c.input(1);
  if (x.known_rank() && x.rank() < 1) return InvalidArgument("bias_add: value must have rank >= 1, got a scalar");
  if (bias.known_rank() && bias.rank() != 1) {
    return InvalidArgument("bias_add: bias must be a vector, got shape {}", bias.ToString());
  }
  if (!x.known_rank()) {
    c.set_output(0, x);
    return Status::OK();
  }
  std::vector<int64_t> dims = x.dims();
  const int64_t want = bias.known_rank() ? bias.dim(0) : PartialShape::kUnknown;
  if (dims.back() >= 0 && want >= 0 && dims.back() != want) {
    return InvalidArgument("bias_add: bias has {} elements but the last dimension of value {} is {}", want,
                           x.ToString(), dims.back());
  }
  if (dims.back() < 0) dims.back() = want;
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

template <typename T>
void AddBias(const OpKernelContext& ctx, const T* x, const T* bias, T* y, int64_t rows, int64_t c) {
  ctx.ParallelFor(rows, c, [=](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      for (int64_t j = 0; j < c; ++j) y[r * c + j] = functor::WrapAdd(x[r * c + j], bias[j]);
    }
  });
}

class BiasAddKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::BiasAddRows l, nn::BiasAddLayout(x.shape(), bias.shape()));
    // In value's buffer when it is dead after this op (forward_input.h).
    TFG_ASSIGN_OR_RETURN(Tensor * out, ForwardInputOrAllocate(ctx, {0}, 0, x.shape()));
    const int64_t c = l.channels, rows = l.rows;
    bool ok =
        TFG_DISPATCH_NUMBER(x.dtype(), T, (AddBias<T>(ctx, x.data<T>(), bias.data<T>(), out->data<T>(), rows, c)));
    if (!ok) return Unimplemented("bias_add: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    return Status::OK();
  }
};

// Per-block partial sums (so threads never share an accumulator), then
// their total. f16 accumulates in f32.
template <typename T>
void SumRows(const OpKernelContext& ctx, const T* dy, T* out, int64_t rows, int64_t c) {
  using Acc = std::conditional_t<std::is_same_v<T, half>, float, T>;
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  std::vector<Acc> partial(static_cast<size_t>(blocks * c), Acc(0));
  ctx.ParallelFor(blocks, kRowsPerBlock * c, [&](int64_t s, int64_t e) {
    for (int64_t b = s; b < e; ++b) {
      Acc* acc = partial.data() + b * c;
      for (int64_t r = b * kRowsPerBlock; r < std::min(rows, (b + 1) * kRowsPerBlock); ++r) {
        for (int64_t j = 0; j < c; ++j) acc[j] = functor::WrapAdd(acc[j], static_cast<Acc>(dy[r * c + j]));
      }
    }
  });
  for (int64_t j = 0; j < c; ++j) {
    Acc total(0);
    for (int64_t b = 0; b < blocks; ++b) total = functor::WrapAdd(total, partial[b * c + j]);
    out[j] = static_cast<T>(total);
  }
}

class BiasAddGradKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& dy = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::BiasAddRows l, nn::BiasAddGradLayout(dy.shape()));
    const int64_t c = l.channels, rows = l.rows;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({c})));
    bool ok = TFG_DISPATCH_NUMBER(dy.dtype(), T, (SumRows<T>(ctx, dy.data<T>(), out->data<T>(), rows, c)));
    if (!ok) return Unimplemented("bias_add_grad: no CPU kernel for dtype {}", DTypeName(dy.dtype()));
    return Status::OK();
  }
};

Status BiasAddGradShapeFn(ShapeContext& c) {
  const PartialShape& dy = c.input(0);
  if (dy.known_rank() && dy.rank() < 1) {
    return InvalidArgument("bias_add_grad: out_backprop must have rank >= 1, got a scalar");
  }
  c.set_output(0, PartialShape({dy.known_rank() ? dy.dim(dy.rank() - 1) : PartialShape::kUnknown}));
  return Status::OK();
}

Status BiasAddGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  g.input_grads[0] = dy;
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("bias_add_grad", {dy}));
  return Status::OK();
}

// bias_add_grad is linear: its adjoint broadcasts the vector back.
Status BiasAddGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output zeros, g.Op("zeros_like", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("bias_add", {zeros, grad}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("bias_add")
                    .Input("value", "T")
                    .Input("bias", "T")
                    .TypeAttr("T", NumberTypes())
                    .Output("output", "T")
                    .SetShapeFn(BiasAddShapeFn)
                    .SetGradFn(BiasAddGrad)
                    .Doc("value + bias, with the vector `bias` added along the last dimension of `value`."));
TFG_REGISTER_OP(OpDefBuilder("bias_add_grad")
                    .Input("out_backprop", "T")
                    .TypeAttr("T", NumberTypes())
                    .Output("output", "T")
                    .SetShapeFn(BiasAddGradShapeFn)
                    .SetGradFn(BiasAddGradGrad)
                    .Doc("The gradient of bias_add for its bias: out_backprop summed over every dimension but "
                         "the last."));
TFG_REGISTER_KERNEL(KernelDef("bias_add", DeviceType::kCpu).Create<BiasAddKernel>());
TFG_REGISTER_KERNEL(KernelDef("bias_add_grad", DeviceType::kCpu).Create<BiasAddGradKernel>());

}  // namespace tfg
