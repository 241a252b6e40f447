// resize_bilinear(images, size, align_corners=false, half_pixel_centers=false):
// TensorFlow 1's tf.image.resize_bilinear (ResizeBilinear) over NHWC float
// images; size is an i32 [new_height, new_width]. Each output pixel
// interpolates the four input pixels around its source coordinate
// (ops/nn/resize.h), weights computed in f32 as TensorFlow does. Unlike
// TensorFlow's op, which always returns f32, the output keeps the input's
// float dtype.
//
// Gradient: resize_bilinear_grad(grads, original_image), which spreads each
// output gradient over the same four pixels with the same weights
// (TensorFlow's ResizeBilinearGrad); it is linear in grads, and its own
// gradient is resize_bilinear again.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/resize.h"

namespace tfg::nn::resize {
namespace {

// The two source rows (or columns) of an output row and the weight of the
// second, as TensorFlow's compute_interpolation_weights.
struct Lerp {
  int64_t lower = 0, upper = 0;
  float weight = 0;
};

std::vector<Lerp> LerpsOf(int64_t out_size, int64_t in_size, float scale, bool half_pixel_centers) {
  std::vector<Lerp> lerps(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    const float in_floor = std::floor(in);
    Lerp& l = lerps[static_cast<size_t>(i)];
    l.lower = std::max<int64_t>(static_cast<int64_t>(in_floor), 0);
    l.upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    l.weight = in - in_floor;
  }
  return lerps;
}

// One resize between an [n, h, w, c] image and an [n, oh, ow, c] one.
struct BilinearPlan {
  int64_t n = 0, h = 0, w = 0, c = 0, oh = 0, ow = 0;
  std::vector<Lerp> ys, xs;
};

BilinearPlan PlanBilinear(const TensorShape& in, int64_t oh, int64_t ow, const ResizeAttrs& a) {
  BilinearPlan p{in.dim(0), in.dim(1), in.dim(2), in.dim(3), oh, ow, {}, {}};
  p.ys = LerpsOf(oh, p.h, Scale(p.h, oh, a.align_corners), a.half_pixel_centers);
  p.xs = LerpsOf(ow, p.w, Scale(p.w, ow, a.align_corners), a.half_pixel_centers);
  return p;
}

template <typename C>
void BilinearForward(const OpKernelContext& ctx, const BilinearPlan& p, const C* x, C* y) {
  ctx.ParallelFor(p.n * p.oh, p.ow * p.c * 8 + 1, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t b = u / p.oh, oy = u % p.oh;
      const Lerp& ly = p.ys[static_cast<size_t>(oy)];
      const C* top = x + (b * p.h + ly.lower) * p.w * p.c;
      const C* bottom = x + (b * p.h + ly.upper) * p.w * p.c;
      C* out = y + u * p.ow * p.c;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const Lerp& lx = p.xs[static_cast<size_t>(ox)];
        for (int64_t ch = 0; ch < p.c; ++ch) {
          const C tl = top[lx.lower * p.c + ch], tr = top[lx.upper * p.c + ch];
          const C bl = bottom[lx.lower * p.c + ch], br = bottom[lx.upper * p.c + ch];
          const C t = tl + (tr - tl) * static_cast<C>(lx.weight);
          const C bo = bl + (br - bl) * static_cast<C>(lx.weight);
          out[ox * p.c + ch] = t + (bo - t) * static_cast<C>(ly.weight);
        }
      }
    }
  });
}

// dx (p.n, p.h, p.w, p.c), overwritten, from dy (p.n, p.oh, p.ow, p.c): one
// image per work unit, since output rows of an image share input rows.
template <typename C>
void BilinearBackward(const OpKernelContext& ctx, const BilinearPlan& p, const C* dy, C* dx) {
  std::fill_n(dx, p.n * p.h * p.w * p.c, C(0));
  ctx.ParallelFor(p.n, p.oh * p.ow * p.c * 8 + 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        const Lerp& ly = p.ys[static_cast<size_t>(oy)];
        C* top = dx + (b * p.h + ly.lower) * p.w * p.c;
        C* bottom = dx + (b * p.h + ly.upper) * p.w * p.c;
        const C wy = static_cast<C>(ly.weight), wy0 = C(1) - wy;
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          const Lerp& lx = p.xs[static_cast<size_t>(ox)];
          const C wx = static_cast<C>(lx.weight), wx0 = C(1) - wx;
          const C* g = dy + ((b * p.oh + oy) * p.ow + ox) * p.c;
          for (int64_t ch = 0; ch < p.c; ++ch) {
            top[lx.lower * p.c + ch] += g[ch] * wy0 * wx0;
            top[lx.upper * p.c + ch] += g[ch] * wy0 * wx;
            bottom[lx.lower * p.c + ch] += g[ch] * wy * wx0;
            bottom[lx.upper * p.c + ch] += g[ch] * wy * wx;
          }
        }
      }
    }
  });
}

class ResizeBilinearKernel final : public ResizeKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = OpName(ctx);
    const Tensor& images = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(auto size, CheckResizeInputs(op, images, ctx.input(1)));
    const BilinearPlan p = PlanBilinear(images.shape(), size[0], size[1], attrs_);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({p.n, p.oh, p.ow, p.c})));
    if (out->num_elements() == 0) return Status::OK();
    return DispatchFloat(op, images.dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> y(out);
      BilinearForward<C>(ctx, p, FloatView<C>(images).get(), y.get());
      y.Finish();
    });
  }
};

class ResizeBilinearGradKernel final : public ResizeKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = OpName(ctx);
    const Tensor& grads = ctx.input(0);
    const Tensor& original = ctx.input(1);
    TFG_RETURN_IF_ERROR(CheckResizeGradInputs(op, grads, original));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, original.shape()));
    const BilinearPlan p = PlanBilinear(original.shape(), grads.dim(1), grads.dim(2), attrs_);
    if (out->num_elements() == 0) return Status::OK();
    return DispatchFloat(op, grads.dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> dx(out);
      BilinearBackward<C>(ctx, p, FloatView<C>(grads).get(), dx.get());
      dx.Finish();
    });
  }
};

}  // namespace

TFG_REGISTER_OP(ResizeOpDef("resize_bilinear", "size", "i32", FloatTypes(),
                            "Resizes NHWC `images` to `size` = [new_height, new_width] by bilinear interpolation, "
                            "as TensorFlow 1's tf.image.resize_bilinear (align_corners and half_pixel_centers as "
                            "there; tf.image.resize in TensorFlow 2 is half_pixel_centers=true). The output keeps "
                            "the input's float dtype, where TensorFlow's op always returns f32.")
                    .SetShapeFn(ResizeShapeFn)
                    .SetGradFn([](GradContext& g) { return ResizeGradFn(g, "resize_bilinear_grad"); }));
TFG_REGISTER_OP(ResizeOpDef("resize_bilinear_grad", "original_image", "T", FloatTypes(),
                            "The gradient of resize_bilinear with respect to its images, given the gradient of its "
                            "output (`original_image` is used only for its shape).")
                    .SetShapeFn(ResizeGradShapeFn)
                    .SetGradFn([](GradContext& g) { return ResizeGradGradFn(g, "resize_bilinear"); }));
TFG_REGISTER_KERNEL(KernelDef("resize_bilinear", DeviceType::kCpu).Create<ResizeBilinearKernel>());
TFG_REGISTER_KERNEL(KernelDef("resize_bilinear_grad", DeviceType::kCpu).Create<ResizeBilinearGradKernel>());

}  // namespace tfg::nn::resize
