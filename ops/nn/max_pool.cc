// max_pool(input, ksize, strides, padding="VALID"): the maximum of each
// window of NHWC `input`, per channel. Padding never wins (padded taps are
// skipped). Gradient helpers declared here, both routing through the
// argmax of each window — the first maximum in row-major window order, as
// TensorFlow picks it; a NaN in a window is its maximum:
//   max_pool_grad(input, out_backprop)  -> d input: out_backprop added at each argmax
//   max_pool_grad_grad(input, grad)     -> grad read at each argmax (pooled shape)
// The two are adjoint in their second operand, so each is the other's gradient.
// f32 max_pool runs on oneDNN when it is built in (ops/nn/pool_onednn.h,
// which says why its gradient does not), these loops otherwise and
// whenever it declines.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/pool.h"
#include "ops/nn/pool_onednn.h"
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
// Bitwise, so it serves scalars (a bool) and vectors (a lane mask) alike.
template <typename T>
inline auto Beats(T v, T m) {
  return (v > m) | ((v != v) & (m == m));
}

// Channels are handled in packs: GCC vector-extension vectors of 16 bytes
// (4 floats: SSE2, which every x86-64 has, or NEON), and single channels
// for the last c % lanes. Written with vectors because the plain channel
// loop came out scalar with branches (and GCC fully unrolls a fixed-length
// lane loop before it can vectorize it). Pack<T, 1> is the scalar case; the
// functions below are written once for both.
template <typename T, int64_t kLanes>
struct Pack {
  typedef T V __attribute__((vector_size(kLanes * sizeof(T))));
  using Index = decltype(V{} > V{});  // lane masks and tap indices
  using Lane = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;  // an element of Index
  static constexpr int64_t lanes = kLanes;
};
template <typename T>
struct Pack<T, 1> {
  using V = T;
  using Index = int64_t;
  using Lane = int64_t;
  static constexpr int64_t lanes = 1;
};

template <typename P>
typename P::V Load(const void* p) {
  typename P::V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename P>
void Store(void* p, typename P::V v) {
  std::memcpy(p, &v, sizeof(v));
}

// Offsets in the image of the valid pixels of window (oh, ow), in row-major
// window order; returns how many.
int64_t WindowTaps(const Geometry& g, int64_t oh, int64_t ow, int64_t* taps) {
  const Span w = ValidWindow(g, oh, ow);
  int64_t n = 0;
  for (int64_t ih = w.hs; ih < w.he; ++ih) {
    for (int64_t iw = w.ws; iw < w.we; ++iw) taps[n++] = (ih * g.w + iw) * g.c;
  }
  return n;
}

// Per lane of the pack at `image` (already offset by its first channel):
// the index into taps[0, n) of the first maximum.
template <typename P, typename T>
typename P::Index PackArgmax(const T* image, const int64_t* taps, int64_t n) {
  using V = typename P::V;
  using Index = typename P::Index;
  V best = Load<P>(image + taps[0]);
  Index tap = Index{} * 0;
  for (int64_t t = 1; t < n; ++t) {
    const V v = Load<P>(image + taps[t]);
    const auto take = Beats(v, best);
    best = take ? v : best;
    tap = take ? Index{} + static_cast<typename P::Lane>(t) : tap;
  }
  return tap;
}

// The pack's maximum over the taps (no argmax needed).
template <typename P, typename T>
void PackMax(const T* image, const int64_t* taps, int64_t n, T* out) {
  using V = typename P::V;
  V best = Load<P>(image + taps[0]);
  for (int64_t t = 1; t < n; ++t) {
    const V v = Load<P>(image + taps[t]);
    best = Beats(v, best) ? v : best;
  }
  Store<P>(out, best);
}

// Routes d (one pack of out_backprop) to each lane's argmax tap of dimage.
// Every tap is written, so when windows are disjoint (kAssign) the taps
// need no zeroing beforehand; overlapping windows accumulate.
template <bool kAssign, typename P, typename T>
void PackRoute(const T* image, T* dimage, const int64_t* taps, int64_t n, const T* d) {
  using V = typename P::V;
  const auto tap = PackArgmax<P>(image, taps, n);
  const V dv = Load<P>(d);
  for (int64_t t = 0; t < n; ++t) {
    T* dst = dimage + taps[t];
    const V routed = tap == static_cast<typename P::Lane>(t) ? dv : V{} * 0;
    Store<P>(dst, kAssign ? routed : Load<P>(dst) + routed);
  }
}

// out (one pack of the pooled shape) = grad read at each lane's argmax.
template <typename P, typename T>
void PackGather(const T* image, const T* grad, const int64_t* taps, int64_t n, T* out) {
  using V = typename P::V;
  const auto tap = PackArgmax<P>(image, taps, n);
  V picked = Load<P>(grad + taps[0]);
  for (int64_t t = 1; t < n; ++t) {
    picked = tap == static_cast<typename P::Lane>(t) ? Load<P>(grad + taps[t]) : picked;
  }
  Store<P>(out, picked);
}

// Calls f(c0, pack) for each pack of channels: 16-byte vectors, then single
// channels.
template <typename T, typename F>
void ForEachPack(int64_t channels, F&& f) {
  using Wide = Pack<T, 16 / sizeof(T)>;
  int64_t c0 = 0;
  for (; c0 + Wide::lanes <= channels; c0 += Wide::lanes) f(c0, Wide());
  for (; c0 < channels; ++c0) f(c0, Pack<T, 1>());
}

template <typename T>
void MaxPoolForward(const OpKernelContext& ctx, const Geometry& g, const T* x, T* y) {
  ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow), [&](int64_t s, int64_t e) {
    std::vector<int64_t> taps(static_cast<size_t>(nn::PoolWindowPixels(g)));
    for (int64_t u = s; u < e; ++u) {
      const T* image = x + (u / g.oh) * g.in_image();
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const int64_t n = WindowTaps(g, u % g.oh, ow, taps.data());
        T* out = y + (u * g.ow + ow) * g.c;
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackMax<decltype(pack)>(image + c0, taps.data(), n, out + c0);
        });
      }
    }
  });
}

// Windows no wider than their stride never share a pixel.
bool DisjointWindows(const Geometry& g) { return g.kh <= g.sh && g.kw <= g.sw; }

// Disjoint windows that together reach every pixel: routing alone writes
// all of d input.
bool TilingWindows(const Geometry& g) {
  // oh * sh >= h, written so that a huge stride cannot overflow.
  return g.kh == g.sh && g.kw == g.sw && g.pad_top == 0 && g.pad_left == 0 &&
         g.oh >= g.h / g.sh + (g.h % g.sh != 0) && g.ow >= g.w / g.sw + (g.w % g.sw != 0);
}

// Windows of one image may overlap, so images are the units of parallel work.
template <bool kAssign, typename T>
void MaxPoolBackwardImages(const Geometry& g, const T* x, const T* dy, T* dx, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(nn::PoolWindowPixels(g)));
  for (int64_t b = s; b < e; ++b) {
    const T* image = x + b * g.in_image();
    T* dimage = dx + b * g.in_image();
    if (!TilingWindows(g)) std::fill(dimage, dimage + g.in_image(), T(0));
    for (int64_t p = 0; p < g.oh * g.ow; ++p) {
      const int64_t n = WindowTaps(g, p / g.ow, p % g.ow, taps.data());
      const T* d = dy + (b * g.oh * g.ow + p) * g.c;
      ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
        PackRoute<kAssign, decltype(pack)>(image + c0, dimage + c0, taps.data(), n, d + c0);
      });
    }
  }
}

template <typename T>
void MaxPoolBackward(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* dy, T* dx) {
  ctx.ParallelFor(g.n, nn::PoolWork(g, g.oh * g.ow), [&](int64_t s, int64_t e) {
    if (DisjointWindows(g)) {
      MaxPoolBackwardImages<true>(g, x, dy, dx, s, e);
    } else {
      MaxPoolBackwardImages<false>(g, x, dy, dx, s, e);
    }
  });
}

template <typename T>
void MaxPoolGather(const OpKernelContext& ctx, const Geometry& g, const T* x, const T* grad, T* out) {
  ctx.ParallelFor(g.n * g.oh, nn::PoolWork(g, g.ow), [&](int64_t s, int64_t e) {
    std::vector<int64_t> taps(static_cast<size_t>(nn::PoolWindowPixels(g)));
    for (int64_t u = s; u < e; ++u) {
      const int64_t offset = (u / g.oh) * g.in_image();
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const int64_t n = WindowTaps(g, u % g.oh, ow, taps.data());
        T* o = out + (u * g.ow + ow) * g.c;
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackGather<decltype(pack)>(x + offset + c0, grad + offset + c0, taps.data(), n, o + c0);
        });
      }
    }
  });
}

// oneDNN's pooling is f32 (f16 reaches it viewed as f32); true when it ran.
template <typename T>
bool OneDnnMaxPool([[maybe_unused]] const OpKernelContext& ctx, [[maybe_unused]] const Geometry& g,
                   [[maybe_unused]] const T* x, [[maybe_unused]] T* y) {
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
  run.out = mode == MaxPoolMode::kGrad ? input : run.pooled;
  if (mode == MaxPoolMode::kForward) return run;
  const TensorShape& expected = mode == MaxPoolMode::kGrad ? run.pooled : input;
  if (*second != expected) {
    return InvalidArgument("{}: {} has shape {} but expected {} for input {}", op,
                           mode == MaxPoolMode::kGrad ? "out_backprop" : "grad", second->ToString(),
                           expected.ToString(), input.ToString());
  }
  return run;
}

}  // namespace nn

namespace {

template <nn::MaxPoolMode kMode>
class MaxPoolKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, nn::ReadWindowAttrs(c.op->name, *c.attrs));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = nn::OpName(ctx);
    const Tensor& x = ctx.input(0);
    const TensorShape* second = kMode == nn::MaxPoolMode::kForward ? nullptr : &ctx.input(1).shape();
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run, nn::PlanMaxPool(op, kMode, attrs_, x.shape(), second));
    const Geometry& g = run.g;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
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
TFG_REGISTER_KERNEL(KernelDef("max_pool", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kForward>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kGrad>>());
TFG_REGISTER_KERNEL(
    KernelDef("max_pool_grad_grad", DeviceType::kCpu).Create<MaxPoolKernel<nn::MaxPoolMode::kGradGrad>>());

}  // namespace tfg
