// conv2d(input, filter, strides=[1, 1], padding="VALID", dilations=[1, 1]):
// 2-D cross-correlation over NHWC images with an HWIO filter, TensorFlow's
// Conv2D. Its gradient uses two helper ops declared here:
//   conv2d_backprop_input(input, filter, out_backprop)  -> d input
//   conv2d_backprop_filter(input, filter, out_backprop) -> d filter
// Each takes both forward operands (one only for its shape) and the same
// attrs; both are linear, so their own gradients are again convolutions.
#include <type_traits>

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/conv2d.h"
#include "ops/nn/conv2d_impl.h"
#include "ops/nn/conv2d_onednn.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"

namespace tfg {
namespace {

using nn::Geometry;

constexpr const char* kInputLayout = "[batch, height, width, channels]";
constexpr const char* kFilterLayout = "[height, width, in_channels, out_channels]";

Status ChannelsError(std::string_view op, int64_t input_channels, int64_t filter_channels, const std::string& input,
                     const std::string& filter) {
  return InvalidArgument("{}: input has {} channels but the filter expects {}: input {}, filter {} {}", op,
                         input_channels, filter_channels, input, filter, kFilterLayout);
}

// The forward output shape from input and filter shapes (dims may be ?).
Result<PartialShape> ConvOutputShape(const std::string& op, const PartialShape& input, const PartialShape& filter,
                                     const AttrMap& attrs) {
  TFG_ASSIGN_OR_RETURN(nn::WindowAttrs a, nn::ReadWindowAttrs(op, attrs));
  TFG_RETURN_IF_ERROR(nn::CheckRank4(op, "input", kInputLayout, input));
  TFG_RETURN_IF_ERROR(nn::CheckRank4(op, "filter", kFilterLayout, filter));
  const PartialShape in = input.known_rank() ? input : PartialShape::UnknownOfRank(4);
  const PartialShape f = filter.known_rank() ? filter : PartialShape::UnknownOfRank(4);
  if (in.dim(3) >= 0 && f.dim(2) >= 0 && in.dim(3) != f.dim(2)) {
    return ChannelsError(op, in.dim(3), f.dim(2), input.ToString(), filter.ToString());
  }
  TFG_ASSIGN_OR_RETURN(nn::SpatialDim rows, nn::ComputeSpatialDim(op, "height", in.dim(1), f.dim(0), a.strides[0],
                                                                  a.dilations[0], a.padding));
  TFG_ASSIGN_OR_RETURN(nn::SpatialDim cols, nn::ComputeSpatialDim(op, "width", in.dim(2), f.dim(1), a.strides[1],
                                                                  a.dilations[1], a.padding));
  return PartialShape({in.dim(0), rows.out, cols.out, f.dim(3)});
}

}  // namespace

namespace nn {

Result<Conv2DRun> PlanConv2D(std::string_view op, const TensorShape& input, const TensorShape& filter,
                             const WindowAttrs& attrs) {
  TFG_RETURN_IF_ERROR(CheckRank4(op, "filter", kFilterLayout, PartialShape(filter)));
  Conv2DRun run;
  TFG_ASSIGN_OR_RETURN(run.g, ComputeGeometry(op, input, filter.dim(0), filter.dim(1), attrs));
  if (run.g.c != filter.dim(2)) return ChannelsError(op, run.g.c, filter.dim(2), input.ToString(), filter.ToString());
  run.out_channels = filter.dim(3);
  run.out = TensorShape({run.g.n, run.g.oh, run.g.ow, run.out_channels});
  return run;
}

Status CheckConv2DOutBackprop(std::string_view op, const Conv2DRun& run, const TensorShape& out_backprop) {
  if (out_backprop == run.out) return Status::OK();
  return InvalidArgument("{}: out_backprop has shape {} but the forward output is {}", op, out_backprop.ToString(),
                         run.out.ToString());
}

Status ConvShape(ShapeContext& c, ConvShapeOf shape_of) {
  TFG_ASSIGN_OR_RETURN(PartialShape out, shape_of(c.op().name, c.input(0), c.input(1), c.attrs()));
  c.set_output(0, std::move(out));
  return Status::OK();
}

Status ConvBackpropShape(ShapeContext& c, ConvShapeOf shape_of, int which) {
  const std::string& op = c.op().name;
  TFG_ASSIGN_OR_RETURN(PartialShape forward, shape_of(op, c.input(0), c.input(1), c.attrs()));
  TFG_RETURN_IF_ERROR(CheckRank4(op, "out_backprop", kInputLayout, c.input(2)));
  if (!forward.CompatibleWith(c.input(2))) {
    return InvalidArgument("{}: out_backprop has shape {} but the convolution of {} by {} gives {}", op,
                           c.input(2).ToString(), c.input(0).ToString(), c.input(1).ToString(), forward.ToString());
  }
  c.set_output(0, c.input(which).known_rank() ? c.input(which) : PartialShape::UnknownOfRank(4));
  return Status::OK();
}

}  // namespace nn

namespace {

Status Conv2DShapeFn(ShapeContext& c) { return nn::ConvShape(c, ConvOutputShape); }

// The backprops: output `which` (0 input, 1 filter) has that operand's shape.
template <int kWhich>
Status BackpropShapeFn(ShapeContext& c) {
  return nn::ConvBackpropShape(c, ConvOutputShape, kWhich);
}

// The f32 (and widened f16) passes go to oneDNN when it is in use
// (ops/nn/conv_backend.h); false when they did not, and the reference
// implementation runs instead. f64 always takes the reference.
using FastConvPass = bool (*)(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*, float*);
template <typename C>
bool FastConv2D(const OpKernelContext& ctx, const Geometry& g, int64_t o, const C* a, const C* b, C* out,
                FastConvPass pass) {
  if constexpr (std::is_same_v<C, float>) {
    return pass(ctx, g, o, a, b, out);
  } else {
    return false;
  }
}

// Checks the operands of one run (the attrs are read once, at Init).
class ConvKernelBase : public nn::WindowOpKernel {
 protected:
  Result<nn::Conv2DRun> Plan(const OpKernelContext& ctx) const {
    return nn::PlanConv2D(nn::OpName(ctx), ctx.input(0).shape(), ctx.input(1).shape(), attrs_);
  }

  // The backprops' plan: also checks out_backprop (input 2).
  Result<nn::Conv2DRun> PlanBackprop(const OpKernelContext& ctx) const {
    TFG_ASSIGN_OR_RETURN(nn::Conv2DRun run, Plan(ctx));
    TFG_RETURN_IF_ERROR(nn::CheckConv2DOutBackprop(nn::OpName(ctx), run, ctx.input(2).shape()));
    return run;
  }
};

class Conv2DKernel final : public ConvKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::Conv2DRun run, Plan(ctx));
    const Geometry& g = run.g;
    const int64_t o = run.out_channels;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    return nn::DispatchFloat(nn::OpName(ctx), input.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> y(out);
      const nn::FloatView<C> x(input), f(filter);
      if (!FastConv2D(ctx, g, o, x.get(), f.get(), y.get(), nn::onednn::Conv2DForward)) {
        nn::Conv2DForward<C>(ctx, g, o, x.get(), f.get(), y.get());
      }
      y.Finish();
    });
  }
};

class Conv2DBackpropInputKernel final : public ConvKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::Conv2DRun run, PlanBackprop(ctx));
    const Geometry& g = run.g;
    const int64_t o = run.out_channels;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, input.shape()));
    return nn::DispatchFloat(nn::OpName(ctx), input.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> dx(out);
      const nn::FloatView<C> f(filter), dy(ctx.input(2));
      if (!FastConv2D(ctx, g, o, f.get(), dy.get(), dx.get(), nn::onednn::Conv2DBackpropInput)) {
        nn::Conv2DBackpropInput<C>(ctx, g, o, f.get(), dy.get(), dx.get());
      }
      dx.Finish();
    });
  }
};

class Conv2DBackpropFilterKernel final : public ConvKernelBase {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::Conv2DRun run, PlanBackprop(ctx));
    const Geometry& g = run.g;
    const int64_t o = run.out_channels;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, filter.shape()));
    return nn::DispatchFloat(nn::OpName(ctx), input.dtype(), [&](auto tag) {
      using C = decltype(tag);
      nn::FloatOut<C> df(out);
      const nn::FloatView<C> x(input), dy(ctx.input(2));
      if (!FastConv2D(ctx, g, o, x.get(), dy.get(), df.get(), nn::onednn::Conv2DBackpropFilter)) {
        nn::Conv2DBackpropFilter<C>(ctx, g, o, x.get(), dy.get(), df.get());
      }
      df.Finish();
    });
  }
};

// <conv(x, f), G> = <x, BI(f, G)> = <f, BF(x, G)>: each op's gradient is
// one of the other two.
Status Conv2DGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("conv2d_backprop_input", {g.input(0), g.input(1), dy}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("conv2d_backprop_filter", {g.input(0), g.input(1), dy}, attrs));
  return Status::OK();
}

Status BackpropInputGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("conv2d_backprop_filter", {grad, g.input(1), g.input(2)}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Op("conv2d", {grad, g.input(1)}, attrs));
  return Status::OK();
}

Status BackpropFilterGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const AttrMap& attrs = g.node->attrs();
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("conv2d_backprop_input", {g.input(0), grad, g.input(2)}, attrs));
  TFG_ASSIGN_OR_RETURN(g.input_grads[2], g.Op("conv2d", {g.input(0), grad}, attrs));
  return Status::OK();
}

OpDefBuilder ConvOp(const char* name, const char* second_input, const char* doc) {
  OpDefBuilder b(name);
  b.Input("input", "T").Input(second_input, "T");
  if (std::string(name) != "conv2d") b.Input("out_backprop", "T");
  b.Attr("strides", AttrType::kIntList, std::vector<int64_t>{1, 1},
         "[stride_h, stride_w] or [1, stride_h, stride_w, 1]")
      .Attr("padding", AttrType::kString, std::string("VALID"), "\"VALID\" or \"SAME\" (TensorFlow's rules)")
      .Attr("dilations", AttrType::kIntList, std::vector<int64_t>{1, 1},
            "[dilation_h, dilation_w] or [1, dilation_h, dilation_w, 1]")
      .TypeAttr("T", FloatTypes())
      .Output("output", "T")
      .SetCostFn(nn::ConvCost)
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(ConvOp("conv2d", "filter",
                       "2-D convolution (cross-correlation) of NHWC `input` [batch, height, width, in_channels] "
                       "with `filter` [height, width, in_channels, out_channels]; output [batch, out_height, "
                       "out_width, out_channels]. SAME padding splits the total padding with the smaller half "
                       "before, as TensorFlow does.")
                    .SetShapeFn(Conv2DShapeFn)
                    .SetGradFn(Conv2DGrad));
TFG_REGISTER_OP(ConvOp("conv2d_backprop_input", "filter",
                       "The gradient of conv2d with respect to its input, given the gradient of its output "
                       "(`input` is used only for its shape).")
                    .SetShapeFn(BackpropShapeFn<0>)
                    .SetGradFn(BackpropInputGrad));
TFG_REGISTER_OP(ConvOp("conv2d_backprop_filter", "filter",
                       "The gradient of conv2d with respect to its filter, given the gradient of its output "
                       "(`filter` is used only for its shape).")
                    .SetShapeFn(BackpropShapeFn<1>)
                    .SetGradFn(BackpropFilterGrad));
TFG_REGISTER_KERNEL(KernelDef("conv2d", DeviceType::kCpu).Create<Conv2DKernel>());
TFG_REGISTER_KERNEL(KernelDef("conv2d_backprop_input", DeviceType::kCpu).Create<Conv2DBackpropInputKernel>());
TFG_REGISTER_KERNEL(KernelDef("conv2d_backprop_filter", DeviceType::kCpu).Create<Conv2DBackpropFilterKernel>());

}  // namespace tfg
