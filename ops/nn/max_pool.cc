// max_pool(input, ksize, strides, padding="VALID"): the maximum of each
// window of NHWC `input`, per channel. Padding never wins (padded taps are
// skipped). Gradient helpers declared here, both routing through the
// argmax of each window — the first maximum in row-major window order, as
// TensorFlow picks it; a NaN in a window is its maximum:
//   max_pool_grad(input, out_backprop)  -> d input: out_backprop added at each argmax
//   max_pool_grad_grad(input, grad)     -> grad read at each argmax (pooled shape)
// The two are adjoint in their second operand, so each is the other's gradient.
#include <algorithm>
#include <vector>

#include "ops/framework/gradients.h"
#include "ops/framework/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

using nn::Geometry;

// The valid part [hs, he) x [ws, we) of window (oh, ow); never empty (see
// nn::ComputeSpatialDim: SAME padding is smaller than the window).
struct Span {
  int64_t hs, he, ws, we;
};

Span ValidWindow(const Geometry& g, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * g.sh - g.pad_top, w0 = ow * g.sw - g.pad_left;
  return {std::max<int64_t>(h0, 0), std::min(h0 + g.kh, g.h), std::max<int64_t>(w0, 0), std::min(w0 + g.kw, g.w)};
}

// v replaces the running maximum m when larger, or when it is the first NaN.
// Bitwise, not short-circuit, so the channel loops vectorize.
template <typename T>
inline bool Beats(T v, T m) {
  return (v > m) | ((v != v) & (m == m));
}

// The argmax of window (oh, ow) of one image, per channel: `taps` gets the
// offsets in the image of the window's valid pixels, in row-major window
// order, and tap[ch] the index into taps of the first maximum of channel ch.
// Keeping tap indices (not offsets) small and the channel loop free of
// aliasing lets the compiler vectorize it. Returns the number of taps.
template <typename T>
int64_t WindowArgmax(const Geometry& g, const T* image, int64_t oh, int64_t ow, T* __restrict best,
                     int32_t* __restrict tap, int64_t* taps) {
  const Span w = ValidWindow(g, oh, ow);
  int64_t n = 0;
  for (int64_t ih = w.hs; ih < w.he; ++ih) {
    for (int64_t iw = w.ws; iw < w.we; ++iw) taps[n++] = (ih * g.w + iw) * g.c;
  }
  const T* __restrict first = image + taps[0];
  for (int64_t ch = 0; ch < g.c; ++ch) {
    best[ch] = first[ch];
    tap[ch] = 0;
  }
  for (int64_t t = 1; t < n; ++t) {
    const T* __restrict px = image + taps[t];
    const int32_t index = static_cast<int32_t>(t);
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const T v = px[ch];
      const bool take = Beats(v, best[ch]);
      best[ch] = take ? v : best[ch];
      tap[ch] = take ? index : tap[ch];
    }
  }
  return n;
}

// Scratch for WindowArgmax, one per thread.
template <typename T>
struct ArgmaxScratch {
  explicit ArgmaxScratch(const Geometry& g)
      : best(static_cast<size_t>(g.c)), tap(static_cast<size_t>(g.c)), taps(static_cast<size_t>(g.kh * g.kw)) {}
  std::vector<T> best;
  std::vector<int32_t> tap;
  std::vector<int64_t> taps;
};

// The forward pass needs no argmax: a plain running maximum vectorizes.
template <typename T>
void WindowMax(const Geometry& g, const T* image, int64_t oh, int64_t ow, T* best) {
  const Span w = ValidWindow(g, oh, ow);
  std::copy_n(image + (w.hs * g.w + w.ws) * g.c, g.c, best);
  for (int64_t ih = w.hs; ih < w.he; ++ih) {
    for (int64_t iw = ih == w.hs ? w.ws + 1 : w.ws; iw < w.we; ++iw) {
      const T* px = image + (ih * g.w + iw) * g.c;
      for (int64_t ch = 0; ch < g.c; ++ch) best[ch] = Beats(px[ch], best[ch]) ? px[ch] : best[ch];
    }
  }
}

template <typename T>
void MaxPoolForward(const OpKernelContext& ctx, const Geometry& g, const T* x, T* y) {
  ctx.ParallelFor(g.n * g.oh, g.ow * g.kh * g.kw * g.c + 1, [&](int64_t s, int64_t e) {
    for (int64_t u = s; u < e; ++u) {
      const T* image = x + (u / g.oh) * g.in_image();
      for (int64_t ow = 0; ow < g.ow; ++ow) WindowMax(g, image, u % g.oh, ow, y + (u * g.ow + ow) * g.c);
    }
  });
}

// Windows of one image overlap, so images are the units of parallel work.
template <typename T>
void MaxPoolBackward(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* dy, T* dx) {
  ctx.ParallelFor(g.n, g.oh * g.ow * g.kh * g.kw * g.c + 1, [&](int64_t s, int64_t e) {
    ArgmaxScratch<T> scratch(g);
    for (int64_t b = s; b < e; ++b) {
      T* dimage = dx + b * g.in_image();
      std::fill(dimage, dimage + g.in_image(), T(0));
      for (int64_t p = 0; p < g.oh * g.ow; ++p) {
        WindowArgmax(g, x + b * g.in_image(), p / g.ow, p % g.ow, scratch.best.data(), scratch.tap.data(),
                     scratch.taps.data());
        const T* d = dy + (b * g.oh * g.ow + p) * g.c;
        for (int64_t ch = 0; ch < g.c; ++ch) dimage[scratch.taps[scratch.tap[ch]] + ch] += d[ch];
      }
    }
  });
}

template <typename T>
void MaxPoolGather(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* grad, T* out) {
  ctx.ParallelFor(g.n * g.oh, g.ow * g.kh * g.kw * g.c + 1, [&](int64_t s, int64_t e) {
    ArgmaxScratch<T> scratch(g);
    for (int64_t u = s; u < e; ++u) {
      const int64_t offset = (u / g.oh) * g.in_image();
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        WindowArgmax(g, x + offset, u % g.oh, ow, scratch.best.data(), scratch.tap.data(), scratch.taps.data());
        T* o = out + (u * g.ow + ow) * g.c;
        for (int64_t ch = 0; ch < g.c; ++ch) o[ch] = grad[offset + scratch.taps[scratch.tap[ch]] + ch];
      }
    }
  });
}

enum Mode { kForward, kGrad, kGradGrad };

template <Mode kMode>
class MaxPoolKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, nn::ReadWindowAttrs(c.op->name, *c.attrs));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Geometry g, nn::ComputeGeometry(op, x.shape(), attrs_.ksize[0], attrs_.ksize[1], attrs_));
    const TensorShape pooled({g.n, g.oh, g.ow, g.c});
    if (kMode != kForward) {
      const TensorShape& expected = kMode == kGrad ? pooled : x.shape();
      if (ctx.input(1).shape() != expected) {
        return InvalidArgument("{}: {} has shape {} but expected {} for input {}", op,
                               kMode == kGrad ? "out_backprop" : "grad", ctx.input(1).shape().ToString(),
                               expected.ToString(), x.shape().ToString());
      }
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, kMode == kGrad ? x.shape() : pooled));
    return nn::DispatchFloat(op, x.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> y(out);
      nn::FloatView<C> in(x);
      if constexpr (kMode == kForward) {
        MaxPoolForward<C>(ctx, g, in.get(), y.get());
      } else if constexpr (kMode == kGrad) {
        MaxPoolBackward<C>(ctx, g, in.get(), nn::FloatView<C>(ctx.input(1)).get(), y.get());
      } else {
        MaxPoolGather<C>(ctx, g, in.get(), nn::FloatView<C>(ctx.input(1)).get(), y.get());
      }
      y.Finish();
    });
  }

 private:
  nn::WindowAttrs attrs_;
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

// Routes the incoming gradient through `op` (max_pool_grad or
// max_pool_grad_grad) applied to (input, gradient).
Status RouteGrad(GradContext& g, const char* op, int grad_input) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[grad_input], g.Op(op, {g.input(0), dy}, g.node->attrs()));
  return Status::OK();
}

OpDefBuilder PoolOp(const char* name, const char* second_input, const char* doc) {
  OpDefBuilder b(name);
  b.Input("input", "T");
  if (second_input != nullptr) b.Input(second_input, "T");
  b.Attr("ksize", AttrType::kIntList, std::nullopt, "window [height, width] or [1, height, width, 1]")
      .Attr("strides", AttrType::kIntList, std::nullopt, "[stride_h, stride_w] or [1, stride_h, stride_w, 1]")
      .Attr("padding", AttrType::kString, std::string("VALID"), "\"VALID\" or \"SAME\" (TensorFlow's rules)")
      .TypeAttr("T", FloatTypes())
      .Output("output", "T")
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(PoolOp("max_pool", nullptr,
                       "The maximum of each ksize window of NHWC `input`, per channel; output [batch, out_height, "
                       "out_width, channels]. Padded positions never count.")
                    .SetShapeFn(nn::PoolShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad", 0); }));
TFG_REGISTER_OP(PoolOp("max_pool_grad", "out_backprop",
                       "The gradient of max_pool: each window's out_backprop is added at the window's first "
                       "maximum of `input`.")
                    .SetShapeFn(nn::PoolGradShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad_grad", 1); }));
TFG_REGISTER_OP(PoolOp("max_pool_grad_grad", "grad",
                       "`grad` (shaped like `input`) read at each window's first maximum of `input`: the "
                       "gradient of max_pool_grad with respect to out_backprop.")
                    .SetShapeFn(GradGradShapeFn)
                    .SetGradFn([](GradContext& g) { return RouteGrad(g, "max_pool_grad", 1); }));
TFG_REGISTER_KERNEL(KernelDef("max_pool", DeviceType::kCpu).Create<MaxPoolKernel<kForward>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad", DeviceType::kCpu).Create<MaxPoolKernel<kGrad>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad_grad", DeviceType::kCpu).Create<MaxPoolKernel<kGradGrad>>());

}  // namespace tfg
