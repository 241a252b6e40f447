// max_pool(input, ksize, strides, padding="VALID"): the maximum of each
// window of NHWC `input`, per channel. Padding never wins (padded taps are
// skipped). Gradient helpers declared here, both routing through the
// argmax of each window — the first maximum in row-major window order, as
// TensorFlow picks it; a NaN in a window is its maximum:
//   max_pool_grad(input, out_backprop)  -> d input: out_backprop added at each argmax
//   max_pool_grad_grad(input, grad)     -> grad read at each argmax (pooled shape)
// The two are adjoint in their second operand, so each is the other's gradient.
//   max_pool_relu_grad(input, out_backprop) -> relu_grad(max_pool_grad(...), input)
// is the pair in one pass, made by the plan's pooling fusion
// (interp/runtime/fuse_pool_relu_grad.h) where max_pool read a relu; its
// second output, the channel sums of the first, stands for the
// bias_add_grad of the convolution below when there is one.
// f32 max_pool runs on oneDNN when it is built in (ops/nn/pool_onednn.h,
// which says why its gradient does not), the loops of
// ops/nn/max_pool_loops.h otherwise and whenever it declines.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/max_pool_loops.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool.h"
#include "ops/nn/pool_onednn.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

using nn::Geometry;

// The loops themselves are in ops/nn/max_pool_loops_impl.h, compiled once
// per instruction set; these split them over the CPU's threads.
template <typename T>
const nn::max_pool_loops::Loops<T>& PoolLoops() {
  return nn::max_pool_loops::LoopsFor<T>(nn::max_pool_loops::BestMaxPoolLoops());
}

template <typename T>
void MaxPoolForward(const OpKernelContext& ctx, const Geometry& g, const T* x, T* y) {
  const auto forward = PoolLoops<T>().forward;
  ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow), [&](int64_t s, int64_t e) { forward(g, x, y, s, e); });
}

// Windows of one image may overlap, so images are the units of parallel work.
template <typename T>
void MaxPoolBackward(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* dy, T* dx) {
  const auto backward = PoolLoops<T>().backward;
  ctx.ParallelFor(g.n, nn::PoolWork(g, g.oh * g.ow), [&](int64_t s, int64_t e) { backward(g, x, dy, dx, s, e); });
}

// max_pool_relu_grad: dx, and dx summed over everything but its channels.
template <typename T>
void MaxPoolReluBackward(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* dy, T* dx, T* sums) {
  const auto backward = PoolLoops<T>().backward_relu;
  nn::RouteImagesSummingChannels(ctx, g, sums,
                                 [&](int64_t s, int64_t e, T* rows) { backward(g, x, dy, dx, rows, s, e); });
}

template <typename T>
void MaxPoolGather(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* grad, T* out) {
  const auto gather = PoolLoops<T>().gather;
  ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow), [&](int64_t s, int64_t e) { gather(g, x, grad, out, s, e); });
}

// oneDNN's pooling is f32 (f16 reaches it viewed as f32); true when it ran.
// It beats the 16-byte loops but not the AVX-512 ones (docs/devices.md), so
// it runs only where those do not.
template <typename T>
bool OneDnnMaxPool([[maybe_unused]] const OpKernelContext& ctx, [[maybe_unused]] const Geometry& g,
                   [[maybe_unused]] const T* x, [[maybe_unused]] T* y) {
  if (nn::max_pool_loops::Avx512Loops() != nullptr) return false;
  if constexpr (std::is_same_v<T, float>) return nn::onednn::MaxPoolForward(ctx, g, x, y);
  return false;
}

}  // namespace

namespace nn {

Result<PoolRun> PlanMaxPool(std::string_view op, MaxPoolMode mode, const WindowAttrs& attrs, const TensorShape& input,
                            const TensorShape* second) {
  PoolRun run;
  TFG_ASSIGN_OR_RETURN(run.g, ComputeGeometry(op, input, attrs.ksize[0], attrs.ksize[1], attrs));
  run.pooled = TensorShape({run.g.n, run.g.oh, run.g.ow, run.g.c});
  const bool grad = mode == MaxPoolMode::kGrad || mode == MaxPoolMode::kGradRelu;
  run.out = grad ? input : run.pooled;
  if (mode == MaxPoolMode::kForward) return run;
  const TensorShape& expected = grad ? run.pooled : input;
  if (*second != expected) {
    return InvalidArgument("{}: {} has shape {} but expected {} for input {}", op,
                           grad ? "out_backprop" : "grad", second->ToString(),
                           expected.ToString(), input.ToString());
  }
  return run;
}

}  // namespace nn

namespace {

template <nn::MaxPoolMode kMode>
class MaxPoolKernel final : public nn::WindowOpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    const TensorShape* second = kMode == nn::MaxPoolMode::kForward ? nullptr : &ctx.input(1).shape();
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run, nn::PlanMaxPool(op, kMode, attrs_, x.shape(), second));
    const Geometry& g = run.g;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    Tensor* channel_sums = nullptr;
    if constexpr (kMode == nn::MaxPoolMode::kGradRelu) {
      TFG_ASSIGN_OR_RETURN(channel_sums, ctx.allocate_output(1, TensorShape({g.c})));
    }
    return nn::DispatchFloat(op, x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> y(out);
      nn::FloatView<C> in(x);
      if constexpr (kMode == nn::MaxPoolMode::kForward) {
        if (!OneDnnMaxPool<C>(ctx, g, in.get(), y.get())) {
          MaxPoolForward<C>(ctx, g, in.get(), y.get());
        }
      } else if constexpr (kMode == nn::MaxPoolMode::kGrad) {
        MaxPoolBackward<C>(ctx, g, in.get(), nn::FloatView<C>(ctx.input(1)).get(), y.get());
      } else if constexpr (kMode == nn::MaxPoolMode::kGradRelu) {
        nn::FloatOut<C> sums(channel_sums);
        MaxPoolReluBackward<C>(ctx, g, in.get(), nn::FloatView<C>(ctx.input(1)).get(), y.get(), sums.get());
        sums.Finish();
      } else {
        MaxPoolGather<C>(ctx, g, in.get(), nn::FloatView<C>(ctx.input(1)).get(), y.get());
      }
      y.Finish();
    });
  }
};

Status GradGradShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_ASSIGN_OR_RETURN(PartialShape pooled, nn::PoolOutputShape(op, c.input(0), c.attrs()));
  if (!c.input(0).CompatibleWith(c.input(1))) {
    return InvalidArgument("{}: grad has shape {} but input has shape {}", op, c.input(1).ToString(),
                           c.input(0).ToString());
  }
  c.set_output(0, std::move(pooled));
  return Status::OK();
}

// max_pool_grad's output, and [channels] for the channel sums.
Status ReluGradShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(nn::PoolGradShapeFn(c));
  const PartialShape& input = c.input(0);
  c.set_output(1, PartialShape({input.known_rank() ? input.dim(3) : PartialShape::kUnknown}));
  return Status::OK();
}

// Routes the incoming gradient through `op` (max_pool_grad or
// max_pool_grad_grad) applied to (input, gradient).
Status RouteGrad(GradContext& g, const char* op, int grad_input) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[grad_input], g.Op(op, {g.input(0), dy}, g.node->attrs()));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(nn::PoolOpDef("max_pool", nullptr,
                       "The maximum of each ksize window of NHWC `input`, per channel; output [batch, out_height, "
                       "out_width, channels]. Padded positions never count.")
                    .SetShapeFn(nn::PoolShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad", 0); }));
TFG_REGISTER_OP(nn::PoolOpDef("max_pool_grad", "out_backprop",
                       "The gradient of max_pool: each window's out_backprop is added at the window's first "
                       "maximum of `input`.")
                    .SetShapeFn(nn::PoolGradShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad_grad", 1); }));
TFG_REGISTER_OP(nn::PoolOpDef("max_pool_grad_grad", "grad",
                       "`grad` (shaped like `input`) read at each window's first maximum of `input`: the "
                       "gradient of max_pool_grad with respect to out_backprop.")
                    .SetShapeFn(GradGradShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad", 1); }));
TFG_REGISTER_OP(nn::PoolOpDef("max_pool_relu_grad", "out_backprop",
                       "relu_grad(max_pool_grad(input, out_backprop), input) in one pass: each window's "
                       "out_backprop goes to the window's first maximum of `input` when that maximum is > 0; "
                       "`channel_sums` [channels] is that output summed over everything but its channels "
                       "(bias_add_grad of it). Made by the pooling fusion of a plan where max_pool read a relu's "
                       "result.")
                    .Output("channel_sums", "T")
                    .SetShapeFn(ReluGradShapeFn)
                    .NoGradient("built after gradients, by the plan's pooling fusion"));
TFG_REGISTER_KERNEL(KernelDef("max_pool", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kForward>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kGrad>>());
TFG_REGISTER_KERNEL(
    KernelDef("max_pool_grad_grad", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kGradGrad>>());
TFG_REGISTER_KERNEL(
    KernelDef("max_pool_relu_grad", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kGradRelu>>());

}  // namespace tfg
