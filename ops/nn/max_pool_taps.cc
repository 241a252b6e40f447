// The pair the pooling fusion (interp/runtime/fuse_pool_relu_grad.h) puts
// in place of a max_pool and the max_pool_relu_grad of the same input:
//   max_pool_with_taps(input)  -> (output, taps)
//   max_pool_relu_grad_from_taps(input, out_backprop, taps) -> (output, channel_sums)
// The forward keeps where each window's maximum was (a byte per pooled
// element: ops/nn/max_pool_loops.h's TapCode), so the gradient routes
// out_backprop without reading the image again: the image is a
// convolution's whole output, read back from memory long after the forward
// pass wrote it, while the bytes are a sixteenth of it for 2x2 windows.
// Same values, bit for bit, as max_pool and max_pool_relu_grad.

#include "ops/core/op_registry.h"
#include "ops/nn/max_pool_loops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

using nn::Geometry;
namespace loops = nn::max_pool_loops;

// Four TapCodes to an i32 element: the dtypes have no byte type, and what
// the bytes mean is the fused pair's business alone.
int64_t TapWords(int64_t pooled_elements) { return pooled_elements / 4 + (pooled_elements % 4 != 0); }
TensorShape TapsShape(const TensorShape& pooled) { return TensorShape({TapWords(pooled.num_elements())}); }

template <typename T>
const loops::Loops<T>& PoolLoops() {
  return loops::LoopsFor<T>(loops::BestMaxPoolLoops());
}

Status CheckWindow(std::string_view op, const Geometry& g) {
  if (nn::PoolWindowPixels(g) <= loops::kMaxTapWindow) return Status::OK();
  return InvalidArgument("{}: windows of {}x{} pixels; at most {} pixels are supported", op, g.kh, g.kw,
                         loops::kMaxTapWindow);
}

class MaxPoolWithTapsKernel final : public nn::WindowOpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run, nn::PlanMaxPool(op, nn::MaxPoolMode::kForward, attrs_, x.shape(), nullptr));
    const Geometry& g = run.g;
    TFG_RETURN_IF_ERROR(CheckWindow(op, g));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.pooled));
    TFG_ASSIGN_OR_RETURN(Tensor * taps, ctx.allocate_output(1, TapsShape(run.pooled)));
    auto* codes = reinterpret_cast<uint8_t*>(taps->data<int32_t>());
    return nn::DispatchFloat(op, x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> y(out);
      nn::FloatView<C> in(x);
      const auto forward = PoolLoops<C>().forward_taps;
      ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow),
                      [&](int64_t s, int64_t e) { forward(g, in.get(), y.get(), codes, s, e); });
      y.Finish();
    });
  }
};

class MaxPoolReluGradFromTapsKernel final : public nn::WindowOpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(1);
    const Tensor& taps = ctx.input(2);
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run,
                         nn::PlanMaxPool(op, nn::MaxPoolMode::kGradRelu, attrs_, x.shape(), &dy.shape()));
    const Geometry& g = run.g;
    TFG_RETURN_IF_ERROR(CheckWindow(op, g));
    if (taps.shape() != TapsShape(run.pooled)) {
      return InvalidArgument("{}: taps has shape {} but pooling {} keeps {}", op, taps.shape().ToString(),
                             x.shape().ToString(), TapsShape(run.pooled).ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    TFG_ASSIGN_OR_RETURN(Tensor * channel_sums, ctx.allocate_output(1, TensorShape({g.c})));
    const auto* codes = reinterpret_cast<const uint8_t*>(taps.data<int32_t>());
    return nn::DispatchFloat(op, x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> dx(out);
      nn::FloatOut<C> sums(channel_sums);
      nn::FloatView<C> grad(dy);
      const auto backward = PoolLoops<C>().backward_relu_taps;
      nn::RouteImagesSummingChannels(ctx, g, sums.get(), [&](int64_t s, int64_t e, C* rows) {
        backward(g, codes, grad.get(), dx.get(), rows, s, e);
      });
      sums.Finish();
      dx.Finish();
    });
  }
};

Status TapsShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape pooled, nn::PoolOutputShape(c.op().name, c.input(0), c.attrs()));
  c.set_output(1, PartialShape({pooled.fully_defined() ? TapWords(pooled.num_elements()) : PartialShape::kUnknown}));
  c.set_output(0, std::move(pooled));
  return Status::OK();
}

Status GradFromTapsShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(nn::PoolGradShapeFn(c));
  const PartialShape& dy = c.input(1);
  if (dy.fully_defined() && !PartialShape({TapWords(dy.num_elements())}).CompatibleWith(c.input(2))) {
    return InvalidArgument("{}: taps has shape {} but out_backprop {} needs [{}]", c.op().name, c.input(2).ToString(),
                           dy.ToString(), TapWords(dy.num_elements()));
  }
  const PartialShape& input = c.input(0);
  c.set_output(1, PartialShape({input.known_rank() ? input.dim(3) : PartialShape::kUnknown}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(nn::PoolOpDef("max_pool_with_taps", nullptr,
                              "max_pool that also keeps where each window's maximum was, for "
                              "max_pool_relu_grad_from_taps: `taps` holds the position of each maximum in its window, a "
                              "byte per element of `output`, four to an i32. Made by the plan's pooling fusion; windows of at most 128 pixels.")
                    .Output("taps", "i32")
                    .SetShapeFn(TapsShapeFn)
                    .NoGradient("built after gradients, by the plan's pooling fusion"));
TFG_REGISTER_OP(nn::PoolOpDef("max_pool_relu_grad_from_taps", {{"out_backprop", "T"}, {"taps", "i32"}},
                              "max_pool_relu_grad(input, out_backprop) routed by the `taps` that "
                              "max_pool_with_taps kept when it pooled `input` (whose values it does not read): "
                              "each window's out_backprop goes to its maximum when that maximum is > 0; "
                              "`channel_sums` is the output summed over everything but its channels. Made by the "
                              "plan's pooling fusion.")
                    .Output("channel_sums", "T")
                    .SetShapeFn(GradFromTapsShapeFn)
                    .NoGradient("built after gradients, by the plan's pooling fusion"));
TFG_REGISTER_KERNEL(KernelDef("max_pool_with_taps", DeviceType::kCpu).Create<MaxPoolWithTapsKernel>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_relu_grad_from_taps", DeviceType::kCpu).Create<MaxPoolReluGradFromTapsKernel>());

}  // namespace tfg
