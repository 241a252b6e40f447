// resize_nearest_neighbor(images, size, align_corners=false,
// half_pixel_centers=false): TensorFlow 1's tf.image.resize_nearest_neighbor
// over NHWC images of any number type. Output pixel (y, x) copies input
// pixel (f(y), f(x)) with TensorFlow's rule: the source coordinate y*scale
// ((y + 0.5)*scale with half_pixel_centers) rounded down (rounded to nearest
// with align_corners), clamped into the image.
//
// Gradient: resize_nearest_neighbor_grad(grads, original_image) adds each
// output gradient into the pixel it was copied from (TensorFlow's
// ResizeNearestNeighborGrad); it is linear, and its own gradient is
// resize_nearest_neighbor again.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/resize.h"

namespace tfg::nn::resize {
namespace {

// The source index of every output index along one dimension.
std::vector<int64_t> NearestSources(int64_t out_size, int64_t in_size, const ResizeAttrs& a) {
  const float scale = Scale(in_size, out_size, a.align_corners);
  std::vector<int64_t> src(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float at = a.half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
    int64_t s = static_cast<int64_t>(a.align_corners ? std::round(at) : std::floor(at));
    s = std::min(s, in_size - 1);
    if (a.half_pixel_centers) s = std::max<int64_t>(s, 0);
    src[static_cast<size_t>(i)] = s;
  }
  return src;
}

struct NearestPlan {
  int64_t n = 0, h = 0, w = 0, c = 0, oh = 0, ow = 0;
  std::vector<int64_t> ys, xs;
};

NearestPlan PlanNearest(const TensorShape& in, int64_t oh, int64_t ow, const ResizeAttrs& a) {
  NearestPlan p{in.dim(0), in.dim(1), in.dim(2), in.dim(3), oh, ow, {}, {}};
  p.ys = NearestSources(oh, p.h, a);
  p.xs = NearestSources(ow, p.w, a);
  return p;
}

// fn(input pixel offset, output pixel offset) for every output pixel of
// images [b0, b1).
template <typename Fn>
void ForEachPixel(const NearestPlan& p, int64_t b0, int64_t b1, Fn&& fn) {
  for (int64_t b = b0; b < b1; ++b) {
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      const int64_t row = (b * p.h + p.ys[static_cast<size_t>(oy)]) * p.w;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        fn((row + p.xs[static_cast<size_t>(ox)]) * p.c, ((b * p.oh + oy) * p.ow + ox) * p.c);
      }
    }
  }
}

class ResizeNearestKernel final : public ResizeKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = OpName(ctx);
    const Tensor& images = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(auto size, CheckResizeInputs(op, images, ctx.input(1)));
    const NearestPlan p = PlanNearest(images.shape(), size[0], size[1], attrs_);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({p.n, p.oh, p.ow, p.c})));
    bool handled = TFG_DISPATCH_NUMBER(images.dtype(), T, {
      const T* x = images.data<T>();
      T* y = out->data<T>();
      ctx.ParallelFor(p.n, p.oh * p.ow * p.c + 1, [&](int64_t b0, int64_t b1) {
        ForEachPixel(p, b0, b1, [&](int64_t from, int64_t to) { std::copy_n(x + from, p.c, y + to); });
      });
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(images.dtype()));
    return Status::OK();
  }
};

class ResizeNearestGradKernel final : public ResizeKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = OpName(ctx);
    const Tensor& grads = ctx.input(0);
    const Tensor& original = ctx.input(1);
    TFG_RETURN_IF_ERROR(CheckResizeGradInputs(op, grads, original));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, original.shape()));
    if (out->num_elements() == 0) return Status::OK();
    const NearestPlan p = PlanNearest(original.shape(), grads.dim(1), grads.dim(2), attrs_);
    return DispatchFloat(op, grads.dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> dx(out);
      // Kept alive: for f16/bf16 the view is a converted copy.
      const auto dy_view = FloatView<C>(grads);
      const C* dy = dy_view.get();
      C* d = dx.get();
      std::fill_n(d, out->num_elements(), C(0));
      ctx.ParallelFor(p.n, p.oh * p.ow * p.c + 1, [&](int64_t b0, int64_t b1) {
        ForEachPixel(p, b0, b1, [&](int64_t from, int64_t to) {
          for (int64_t ch = 0; ch < p.c; ++ch) d[from + ch] += dy[to + ch];
        });
      });
      dx.Finish();
    });
  }
};

}  // namespace

TFG_REGISTER_OP(ResizeOpDef("resize_nearest_neighbor", "size", "i32", NumberTypes(),
                            "Resizes NHWC `images` to `size` = [new_height, new_width] by copying the nearest "
                            "pixel, as TensorFlow 1's tf.image.resize_nearest_neighbor (align_corners and "
                            "half_pixel_centers as there). Any number dtype; the output keeps it.")
                    .SetShapeFn(ResizeShapeFn)
                    .SetGradFn([](GradContext& g) { return ResizeGradFn(g, "resize_nearest_neighbor_grad"); }));
TFG_REGISTER_OP(ResizeOpDef("resize_nearest_neighbor_grad", "original_image", "T", FloatTypes(),
                            "The gradient of resize_nearest_neighbor with respect to its images, given the gradient "
                            "of its output (`original_image` is used only for its shape).")
                    .SetShapeFn(ResizeGradShapeFn)
                    .SetGradFn([](GradContext& g) { return ResizeGradGradFn(g, "resize_nearest_neighbor"); }));
TFG_REGISTER_KERNEL(KernelDef("resize_nearest_neighbor", DeviceType::kCpu).Create<ResizeNearestKernel>());
TFG_REGISTER_KERNEL(
    KernelDef("resize_nearest_neighbor_grad", DeviceType::kCpu).Create<ResizeNearestGradKernel>());

}  // namespace tfg::nn::resize
