// depthwise_conv2d(input, filter, strides=[1, 1], padding="VALID",
// dilations=[1, 1]): tf.nn.depthwise_conv2d (DepthwiseConv2dNative) over
// NHWC images. Each input channel c is convolved with its own filters
// filter[:, :, c, 0..M): output channel c*M + m. Geometry (strides, SAME
// padding, dilations) is conv2d's (ops/nn/window.h). Its gradient uses two
// helper ops, as conv2d's:
//   depthwise_conv2d_backprop_input(input, filter, out_backprop)  -> d input
//   depthwise_conv2d_backprop_filter(input, filter, out_backprop) -> d filter
// (one forward operand used only for its shape); all three are bilinear,
// so each one's gradient is the other two.
#include <algorithm>
#include <string>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/conv2d.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"

namespace tfg::nn::depthwise {
namespace {

constexpr const char* kInputLayout = "[batch, height, width, channels]";
constexpr const char* kFilterLayout = "[height, width, in_channels, channel_multiplier]";

Result<PartialShape> DepthwiseOutputShape(const std::string& op, const PartialShape& input,
                                          const PartialShape& filter, const AttrMap& attrs) {
  TFG_ASSIGN_OR_RETURN(WindowAttrs a, ReadWindowAttrs(op, attrs));
  TFG_RETURN_IF_ERROR(CheckRank4(op, "input", kInputLayout, input));
  TFG_RETURN_IF_ERROR(CheckRank4(op, "filter", kFilterLayout, filter));
  const PartialShape in = input.known_rank() ? input : PartialShape::UnknownOfRank(4);
  const PartialShape f = filter.known_rank() ? filter : PartialShape::UnknownOfRank(4);
  if (in.dim(3) >= 0 && f.dim(2) >= 0 && in.dim(3) != f.dim(2)) {
    return InvalidArgument("{}: input has {} channels but the filter expects {}: input {}, filter {} {}", op,
                           in.dim(3), f.dim(2), input.ToString(), filter.ToString(), kFilterLayout);
  }
  TFG_ASSIGN_OR_RETURN(SpatialDim rows, ComputeSpatialDim(op, "height", in.dim(1), f.dim(0), a.strides[0],
                                                          a.dilations[0], a.padding));
  TFG_ASSIGN_OR_RETURN(SpatialDim cols, ComputeSpatialDim(op, "width", in.dim(2), f.dim(1), a.strides[1],
                                                          a.dilations[1], a.padding));
  const int64_t c = in.dim(3) >= 0 ? in.dim(3) : f.dim(2);
  const int64_t channels = c >= 0 && f.dim(3) >= 0 ? c * f.dim(3) : -1;
  return PartialShape({in.dim(0), rows.out, cols.out, channels});
}

Status DepthwiseShapeFn(ShapeContext& c) { return ConvShape(c, DepthwiseOutputShape); }

// The backprops: output `which` (0 input, 1 filter) has that operand's shape.
template <int kWhich>
Status DepthwiseBackpropShapeFn(ShapeContext& c) {
  return ConvBackpropShape(c, DepthwiseOutputShape, kWhich);
}

// One run: the window geometry and the channel multiplier M.
struct Run {
  Geometry g;
  int64_t m = 0;
  TensorShape out;  // [n, oh, ow, c * m]
};

// The input pixel that output (oh, ow) reads through tap (i, j), or false
// when the tap falls in the padding.
inline bool Tap(const Geometry& g, int64_t oh, int64_t ow, int64_t i, int64_t j, int64_t* ih, int64_t* iw) {
  *ih = oh * g.sh - g.pad_top + i * g.dh;
  *iw = ow * g.sw - g.pad_left + j * g.dw;
  return *ih >= 0 && *ih < g.h && *iw >= 0 && *iw < g.w;
}

// Calls fn(x offset, y offset, filter offset) for every (image, output
// pixel, tap, channel, multiplier) of images [n0, n1), offsets without the
// channel/multiplier part.
template <typename Fn>
void ForEachTap(const Run& r, int64_t n0, int64_t n1, Fn&& fn) {
  const Geometry& g = r.g;
  const int64_t oc = g.c * r.m;
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      for (int64_t ow = 0; ow < g.ow; ++ow) {
        const int64_t y = ((n * g.oh + oh) * g.ow + ow) * oc;
        for (int64_t i = 0; i < g.kh; ++i) {
          for (int64_t j = 0; j < g.kw; ++j) {
            int64_t ih, iw;
            if (!Tap(g, oh, ow, i, j, &ih, &iw)) continue;
            fn(((n * g.h + ih) * g.w + iw) * g.c, y, (i * g.kw + j) * oc);
          }
        }
      }
    }
  }
}

template <typename T>
void Forward(const OpKernelContext& ctx, const Run& r, const T* x, const T* f, T* y) {
  const int64_t c = r.g.c, m = r.m;
  std::fill_n(y, r.out.num_elements(), T(0));
  ctx.ParallelFor(r.g.n, r.g.oh * r.g.ow * r.g.kh * r.g.kw * c * m + 1, [&](int64_t n0, int64_t n1) {
    ForEachTap(r, n0, n1, [&](int64_t xo, int64_t yo, int64_t fo) {
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t k = 0; k < m; ++k) y[yo + ch * m + k] += x[xo + ch] * f[fo + ch * m + k];
      }
    });
  });
}

template <typename T>
void BackpropInput(const OpKernelContext& ctx, const Run& r, const T* f, const T* dy, T* dx) {
  const int64_t c = r.g.c, m = r.m;
  std::fill_n(dx, r.g.n * r.g.in_image(), T(0));
  ctx.ParallelFor(r.g.n, r.g.oh * r.g.ow * r.g.kh * r.g.kw * c * m + 1, [&](int64_t n0, int64_t n1) {
    ForEachTap(r, n0, n1, [&](int64_t xo, int64_t yo, int64_t fo) {
      for (int64_t ch = 0; ch < c; ++ch) {
        T sum = T(0);
        for (int64_t k = 0; k < m; ++k) sum += dy[yo + ch * m + k] * f[fo + ch * m + k];
        dx[xo + ch] += sum;
      }
    });
  });
}

// Sequential over images: every image adds into the whole filter.
template <typename T>
void BackpropFilter(const Run& r, const T* x, const T* dy, T* df) {
  const int64_t c = r.g.c, m = r.m;
  std::fill_n(df, r.g.kh * r.g.kw * c * m, T(0));
  ForEachTap(r, 0, r.g.n, [&](int64_t xo, int64_t yo, int64_t fo) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t k = 0; k < m; ++k) df[fo + ch * m + k] += x[xo + ch] * dy[yo + ch * m + k];
    }
  });
}

class DepthwiseKernelBase : public WindowOpKernel {
 protected:
  // Checks input and filter (and out_backprop, input 2, when present).
  Result<Run> Plan(const OpKernelContext& ctx) const {
    const std::string& op = OpName(ctx);
    const TensorShape& input = ctx.input(0).shape();
    const TensorShape& filter = ctx.input(1).shape();
    TFG_RETURN_IF_ERROR(CheckRank4(op, "filter", kFilterLayout, PartialShape(filter)));
    Run r;
    TFG_ASSIGN_OR_RETURN(r.g, ComputeGeometry(op, input, filter.dim(0), filter.dim(1), attrs_));
    if (r.g.c != filter.dim(2)) {
      return InvalidArgument("{}: input has {} channels but the filter expects {}: input {}, filter {} {}", op, r.g.c,
                             filter.dim(2), input.ToString(), filter.ToString(), kFilterLayout);
    }
    r.m = filter.dim(3);
    r.out = TensorShape({r.g.n, r.g.oh, r.g.ow, r.g.c * r.m});
    if (ctx.num_inputs() > 2 && ctx.input(2).shape() != r.out) {
      return InvalidArgument("{}: out_backprop has shape {} but the forward output is {}", op,
                             ctx.input(2).shape().ToString(), r.out.ToString());
    }
    return r;
  }
};

class DepthwiseConv2DKernel final : public DepthwiseKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Run r, Plan(ctx));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, r.out));
    return DispatchFloat(OpName(ctx), ctx.input(0).dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> y(out);
      Forward<C>(ctx, r, FloatView<C>(ctx.input(0)).get(), FloatView<C>(ctx.input(1)).get(), y.get());
      y.Finish();
    });
  }
};

class DepthwiseBackpropInputKernel final : public DepthwiseKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Run r, Plan(ctx));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ctx.input(0).shape()));
    return DispatchFloat(OpName(ctx), ctx.input(0).dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> dx(out);
      BackpropInput<C>(ctx, r, FloatView<C>(ctx.input(1)).get(), FloatView<C>(ctx.input(2)).get(), dx.get());
      dx.Finish();
    });
  }
};

class DepthwiseBackpropFilterKernel final : public DepthwiseKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Run r, Plan(ctx));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, ctx.input(1).shape()));
    return DispatchFloat(OpName(ctx), ctx.input(0).dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> df(out);
      BackpropFilter<C>(r, FloatView<C>(ctx.input(0)).get(), FloatView<C>(ctx.input(2)).get(), df.get());
      df.Finish();
    });
  }
};

Status DepthwiseGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[0],
                       g.Op("depthwise_conv2d_backprop_input", {g.input(0), g.input(1), dy}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1],
                       g.Op("depthwise_conv2d_backprop_filter", {g.input(0), g.input(1), dy}, attrs));
  return Status::OK();
}

Status DepthwiseBackpropInputGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[1],
                       g.Op("depthwise_conv2d_backprop_filter", {grad, g.input(1), g.input(2)}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Op("depthwise_conv2d", {grad, g.input(1)}, attrs));
  return Status::OK();
}

Status DepthwiseBackpropFilterGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[0],
                       g.Op("depthwise_conv2d_backprop_input", {g.input(0), grad, g.input(2)}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Op("depthwise_conv2d", {g.input(0), grad}, attrs));
  return Status::OK();
}

// 2 operations per filter tap of each element of the forward output (conv2d's
// ConvCost would count every input channel).
double DepthwiseCost(const Node& node) {
  const PartialShape& out = node.inputs().size() > 2 ? node.inputs()[2].shape() : node.output_shapes()[0];
  const PartialShape& filter = node.inputs()[1].shape();
  auto known = [](const PartialShape& s, int i) {
    return s.known_rank() && s.rank() > i && s.dim(i) > 0 ? static_cast<double>(s.dim(i)) : 1.0;
  };
  double elements = 1;
  for (int i = 0; i < 4; ++i) elements *= known(out, i);
  return 2 * elements * known(filter, 0) * known(filter, 1);
}

OpDefBuilder DepthwiseOp(const char* name, bool backprop, const char* doc) {
  OpDefBuilder b(name);
  b.Input("input", "T").Input("filter", "T");
  if (backprop) b.Input("out_backprop", "T");
  b.Attr("strides", AttrType::kIntList, std::vector<int64_t>{1, 1},
         "[stride_h, stride_w] or [1, stride_h, stride_w, 1]")
      .Attr("padding", AttrType::kString, std::string("VALID"), "\"VALID\" or \"SAME\" (TensorFlow's rules)")
      .Attr("dilations", AttrType::kIntList, std::vector<int64_t>{1, 1},
            "[dilation_h, dilation_w] or [1, dilation_h, dilation_w, 1]")
      .TypeAttr("T", FloatTypes())
      .Output("output", "T")
      .SetCostFn(DepthwiseCost)
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(DepthwiseOp("depthwise_conv2d", false,
                            "Depthwise 2-D convolution of NHWC `input` [batch, height, width, in_channels] with "
                            "`filter` [height, width, in_channels, channel_multiplier], as "
                            "tf.nn.depthwise_conv2d: input channel c convolved with filter[:, :, c, m] gives output "
                            "channel c * channel_multiplier + m. Strides, padding and dilations as conv2d's.")
                    .SetShapeFn(DepthwiseShapeFn)
                    .SetGradFn(DepthwiseGrad));
TFG_REGISTER_OP(DepthwiseOp("depthwise_conv2d_backprop_input", true,
                            "The gradient of depthwise_conv2d with respect to its input, given the gradient of its "
                            "output (`input` is used only for its shape).")
                    .SetShapeFn(DepthwiseBackpropShapeFn<0>)
                    .SetGradFn(DepthwiseBackpropInputGrad));
TFG_REGISTER_OP(DepthwiseOp("depthwise_conv2d_backprop_filter", true,
                            "The gradient of depthwise_conv2d with respect to its filter, given the gradient of its "
                            "output (`filter` is used only for its shape).")
                    .SetShapeFn(DepthwiseBackpropShapeFn<1>)
                    .SetGradFn(DepthwiseBackpropFilterGrad));
TFG_REGISTER_KERNEL(KernelDef("depthwise_conv2d", DeviceType::kCpu).Create<DepthwiseConv2DKernel>());
TFG_REGISTER_KERNEL(
    KernelDef("depthwise_conv2d_backprop_input", DeviceType::kCpu).Create<DepthwiseBackpropInputKernel>());
TFG_REGISTER_KERNEL(
    KernelDef("depthwise_conv2d_backprop_filter", DeviceType::kCpu).Create<DepthwiseBackpropFilterKernel>());

}  // namespace tfg::nn::depthwise
