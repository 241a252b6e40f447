// avg_pool(input, ksize, strides, padding="VALID"): the mean of each window
// of NHWC `input`, per channel. With SAME padding the padded taps are left
// out of the count (TensorFlow's AvgPool). Its gradient helper:
//   avg_pool_grad(input, out_backprop) -> d input (input used for its shape)
// spreads each window's gradient evenly over the window's valid taps. The
// two are adjoint, so each is the other's gradient.
#include <algorithm>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

using nn::Geometry;

// The valid part [hs, he) x [ws, we) of window (oh, ow).
struct Span {
  int64_t hs, he, ws, we;
  int64_t count() const { return (he - hs) * (we - ws); }
};

Span ValidWindow(const Geometry& g, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * g.sh - g.pad_top, w0 = ow * g.sw - g.pad_left;
  return {std::max<int64_t>(h0, 0), std::min(h0 + g.kh, g.h), std::max<int64_t>(w0, 0), std::min(w0 + g.kw, g.w)};
}

template <typename T>
void AvgPoolForward(const OpKernelContext& ctx, const Geometry& g, const T* x, T* y) {
  ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow), [&](int64_t s, int64_t e) {
    for (int64_t u = s; u < e; ++u) {
      const T* image = x + (u / g.oh) * g.in_image();
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const Span w = ValidWindow(g, u % g.oh, ow);
        T* out = y + (u * g.ow + ow) * g.c;
        std::fill(out, out + g.c, T(0));
        for (int64_t ih = w.hs; ih < w.he; ++ih) {
          for (int64_t iw = w.ws; iw < w.we; ++iw) {
            const T* px = image + (ih * g.w + iw) * g.c;
            for (int64_t ch = 0; ch < g.c; ++ch) out[ch] += px[ch];
          }
        }
        const T scale = T(1) / static_cast<T>(w.count());
        for (int64_t ch = 0; ch < g.c; ++ch) out[ch] *= scale;
      }
    }
  });
}

// Windows of one image overlap, so images are the units of parallel work.
template <typename T>
void AvgPoolBackward(const OpKernelContext& ctx, const Geometry& g, const T* dy, T* dx) {
  ctx.ParallelFor(g.n, nn::PoolWork(g, g.oh * g.ow), [&](int64_t s, int64_t e) {
    std::vector<T> share(g.c);
    for (int64_t b = s; b < e; ++b) {
      T* dimage = dx + b * g.in_image();
      std::fill(dimage, dimage + g.in_image(), T(0));
      for (int64_t p = 0; p < g.oh * g.ow; ++p) {
        const Span w = ValidWindow(g, p / g.ow, p % g.ow);
        const T scale = T(1) / static_cast<T>(w.count());
        const T* d = dy + (b * g.oh * g.ow + p) * g.c;
        for (int64_t ch = 0; ch < g.c; ++ch) share[ch] = d[ch] * scale;
        for (int64_t ih = w.hs; ih < w.he; ++ih) {
          for (int64_t iw = w.ws; iw < w.we; ++iw) {
            T* px = dimage + (ih * g.w + iw) * g.c;
            for (int64_t ch = 0; ch < g.c; ++ch) px[ch] += share[ch];
          }
        }
      }
    }
  });
}

}  // namespace

namespace nn {

Result<PoolRun> PlanAvgPool(std::string_view op, const WindowAttrs& attrs, const TensorShape& input,
                            const TensorShape* out_backprop) {
  PoolRun run;
  TFG_ASSIGN_OR_RETURN(run.g, ComputeGeometry(op, input, attrs.ksize[0], attrs.ksize[1], attrs));
  run.pooled = TensorShape({run.g.n, run.g.oh, run.g.ow, run.g.c});
  run.out = out_backprop ? input : run.pooled;
  if (out_backprop && *out_backprop != run.pooled) {
    return InvalidArgument("{}: out_backprop has shape {} but pooling {} gives {}", op, out_backprop->ToString(),
                           input.ToString(), run.pooled.ToString());
  }
  return run;
}

}  // namespace nn

namespace {

template <bool kGrad>
class AvgPoolKernel final : public nn::WindowOpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    const TensorShape* out_backprop = kGrad ? &ctx.input(1).shape() : nullptr;
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run, nn::PlanAvgPool(op, attrs_, x.shape(), out_backprop));
    const Geometry& g = run.g;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    return nn::DispatchFloat(op, x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> y(out);
      if constexpr (kGrad) {
        AvgPoolBackward<C>(ctx, g, nn::FloatView<C>(ctx.input(1)).get(), y.get());
      } else {
        AvgPoolForward<C>(ctx, g, nn::FloatView<C>(x).get(), y.get());
      }
      y.Finish();
    });
  }
};

Status AvgPoolGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("avg_pool_grad", {g.input(0), dy}, g.node->attrs()));
  return Status::OK();
}

Status AvgPoolGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("avg_pool", {grad}, g.node->attrs()));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(nn::PoolOpDef("avg_pool", nullptr,
                       "The mean of each ksize window of NHWC `input`, per channel; padded positions are left out "
                       "of the mean. Output [batch, out_height, out_width, channels].")
                    .SetShapeFn(nn::PoolShapeFn)
                    .SetGradFn(AvgPoolGrad));
TFG_REGISTER_OP(nn::PoolOpDef("avg_pool_grad", "out_backprop",
                       "The gradient of avg_pool: each window's out_backprop spread evenly over its valid "
                       "positions (`input` is used only for its shape).")
                    .SetShapeFn(nn::PoolGradShapeFn)
                    .SetGradFn(AvgPoolGradGrad));
TFG_REGISTER_KERNEL(KernelDef("avg_pool", DeviceType::kCpu).Create<AvgPoolKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef("avg_pool_grad", DeviceType::kCpu).Create<AvgPoolKernel<true>>());

}  // namespace tfg
