// l2_loss(t): sum(t ** 2) / 2, a scalar (weight decay). Sums accumulate in
// f64 (f16/f32 inputs are rounded once at the end). Gradient: t * dloss.
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace {

constexpr int64_t kBlock = 4096;

template <typename T>
double HalfSumOfSquares(const OpKernelContext& ctx, const T* x, int64_t n) {
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
  ctx.ParallelFor(blocks, kBlock, [&](int64_t s, int64_t e) {
    for (int64_t b = s; b < e; ++b) {
      double acc = 0;
      for (int64_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
        const double v = static_cast<double>(x[i]);
        acc += v * v;
      }
      partial[b] = acc;
    }
  });
  double total = 0;
  for (double p : partial) total += p;
  return total / 2;
}

class L2LossKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape()));
    switch (x.dtype()) {
      case DType::kF16:
        out->data<half>()[0] = static_cast<half>(HalfSumOfSquares(ctx, x.data<half>(), x.num_elements()));
        break;
      case DType::kF32:
        out->data<float>()[0] = static_cast<float>(HalfSumOfSquares(ctx, x.data<float>(), x.num_elements()));
        break;
      case DType::kF64: out->data<double>()[0] = HalfSumOfSquares(ctx, x.data<double>(), x.num_elements()); break;
      default: return Unimplemented("l2_loss: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    }
    return Status::OK();
  }
};

Status L2LossGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dloss, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("mul", {g.input(0), dloss}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("l2_loss")
                    .Input("t", "T")
                    .TypeAttr("T", FloatTypes())
                    .Output("loss", "T")
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .SetGradFn(L2LossGrad)
                    .Doc("sum(t ** 2) / 2 over every element, a scalar (as for weight decay)."));
TFG_REGISTER_KERNEL(KernelDef("l2_loss", DeviceType::kCpu).Create<L2LossKernel>());

}  // namespace tfg
