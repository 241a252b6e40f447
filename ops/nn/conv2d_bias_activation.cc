// conv2d_bias_activation(input, filter, bias, strides, padding, dilations,
// activation="none"): activation(bias_add(conv2d(input, filter), bias)) as
// one kernel. The conv fusion pass (interp/runtime/fuse_conv.h) makes it
// from a conv2d -> bias_add [-> relu] chain after gradients are built, so
// it has no gradient of its own: the chain's gradient nodes read only the
// convolution's inputs, the incoming gradient and relu's result, which is
// this node's output.
//
// With oneDNN in use (ops/nn/conv_backend.h) f32 runs as one convolution
// whose bias and ReLU are applied as the output is written. Otherwise (the
// reference backend, f16 or f64, a shape oneDNN declines, or a NaN or Inf
// operand under ReLU) the convolution runs as conv2d's does and the bias
// and ReLU follow in one pass over its output.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/fused/member_spans.h"
#include "ops/nn/all_finite.h"
#include "ops/nn/bias_add.h"
#include "ops/nn/conv2d.h"
#include "ops/nn/conv2d_impl.h"
#include "ops/nn/conv2d_onednn.h"
#include "ops/nn/conv_backend.h"
#include "ops/nn/nn_util.h"
#include "ops/nn/window.h"

// Helpers named after the op: ops/nn compiles in unity groups.
namespace tfg::nn::conv2d_bias_activation {
namespace {

constexpr char kOp[] = "conv2d_bias_activation";

// The shape of conv2d's output (conv2d's own shape function, so both
// accept the same operands and word errors alike), with the bias's length
// as its channels: a rank-1 bias as long as the filter's out_channels.
Status ShapeFn(ShapeContext& c) {
  const OpDef* conv = OpRegistry::Global().Find("conv2d");
  if (conv == nullptr || !conv->shape_fn) return Internal("{}: conv2d is not registered", kOp);
  TFG_RETURN_IF_ERROR(conv->shape_fn(c));
  const PartialShape& bias = c.input(2);
  if (bias.known_rank() && bias.rank() != 1) {
    return InvalidArgument("{}: bias must be a vector, got shape {}", kOp, bias.ToString());
  }
  PartialShape out = c.output_shapes()[0];
  const int64_t want = bias.known_rank() ? bias.dim(0) : PartialShape::kUnknown;
  if (!out.known_rank() || want < 0) return Status::OK();
  std::vector<int64_t> dims = out.dims();
  if (dims.back() >= 0 && dims.back() != want) {
    return InvalidArgument("{}: bias has {} elements but the convolution has {} output channels", kOp, want,
                           dims.back());
  }
  dims.back() = want;
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// 2 multiply-adds per filter tap per output element, as conv2d's cost.
double Cost(const Node& node) {
  const PartialShape& out = node.output_shapes()[0];
  const PartialShape& filter = node.inputs()[1].shape();
  double ops = 2;
  for (int64_t d : out.known_rank() ? out.dims() : std::vector<int64_t>{}) ops *= d > 0 ? static_cast<double>(d) : 1;
  for (int i = 0; i < 3 && filter.known_rank() && filter.rank() == 4; ++i) {
    ops *= filter.dim(i) > 0 ? static_cast<double>(filter.dim(i)) : 1;
  }
  return ops;
}

// y[r, j] = act(y[r, j] + bias[j]) over [rows, channels], on the pool.
template <typename C>
void AddBiasAndActivate(const OpKernelContext& ctx, const C* bias, bool relu, C* y, int64_t rows, int64_t c) {
  ctx.ParallelFor(rows, 2 * c, [=](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      C* row = y + r * c;
      for (int64_t j = 0; j < c; ++j) {
        const C v = row[j] + bias[j];
        row[j] = relu ? functor::Relu{}(v) : v;
      }
    }
  });
}

// oneDNN's ReLU post-op turns NaN into 0 where relu keeps it; a NaN or Inf
// operand (the only way to a NaN sum short of overflow) takes the unfused
// arithmetic instead, so the result is relu's.
bool OneDnnReluSafe(const OpKernelContext& ctx, const Tensor& x, const Tensor& f, const Tensor& b) {
  return x.dtype() == DType::kF32 && AllFinite(ctx, x.data<float>(), x.num_elements()) &&
         AllFinite(ctx, f.data<float>(), f.num_elements()) && AllFinite(ctx, b.data<float>(), b.num_elements());
}

class Conv2DBiasActivationKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, ReadWindowAttrs(kOp, *c.attrs));
    const std::string* act = FindAttr<std::string>(*c.attrs, "activation");
    if (act == nullptr || (*act != "none" && *act != "relu")) {
      return InvalidArgument("{}: activation must be \"none\" or \"relu\", got {}", kOp,
                             act == nullptr ? std::string("nothing") : "\"" + *act + "\"");
    }
    relu_ = *act == "relu";
    if (const auto* spans = FindAttr<std::vector<int64_t>>(*c.attrs, "spans")) spans_ = *spans;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    const Tensor& bias = ctx.input(2);
    // Errors name the op the user wrote and point at its line, as unfused.
    auto run = PlanConv2D("conv2d", input.shape(), filter.shape(), attrs_);
    if (!run.ok()) return AtMember(run.status(), 0);
    auto layout = BiasAddLayout(run->out, bias.shape());
    if (!layout.ok()) return AtMember(layout.status(), 1);
    const Geometry& g = run->g;
    const int64_t o = run->out_channels;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run->out));
    return DispatchFloat(kOp, input.dtype(), [&](auto tag) {
      using C = decltype(tag);
      FloatOut<C> y(out);
      const FloatView<C> x(input), f(filter), b(bias);
      bool convolved = false;
      if constexpr (std::is_same_v<C, float>) {
        const bool use_onednn = CpuConvBackend() == ConvBackend::kOneDnn;
        // With ReLU the operands were just found finite; without, oneDNN
        // checks them where it needs to.
        if (use_onednn && (!relu_ || OneDnnReluSafe(ctx, input, filter, bias)) &&
            onednn::Conv2DBiasActivationForward(ctx, g, o, x.get(), f.get(), b.get(), relu_, relu_, y.get())) {
          y.Finish();
          return;
        }
        convolved = use_onednn && onednn::Conv2DForward(ctx, g, o, x.get(), f.get(), y.get());
      }
      if (!convolved) Conv2DForward<C>(ctx, g, o, x.get(), f.get(), y.get());
      AddBiasAndActivate<C>(ctx, b.get(), relu_, y.get(), layout->rows, layout->channels);
      y.Finish();
    });
  }

 private:
  // `s` at the line of member `k` (0 the conv2d, 1 the bias_add) when the
  // fusion pass recorded it; else the executor puts it at this node's.
  Status AtMember(Status s, size_t k) const {
    if (k < spans_.size()) s.WithSpan(fused::SpanOf(spans_[k]));
    return s;
  }

  WindowAttrs attrs_;
  bool relu_ = false;
  std::vector<int64_t> spans_;
};

TFG_REGISTER_OP(
    OpDefBuilder(kOp)
        .Input("input", "T")
        .Input("filter", "T")
        .Input("bias", "T")
        .Attr("strides", AttrType::kIntList, std::vector<int64_t>{1, 1},
              "[stride_h, stride_w] or [1, stride_h, stride_w, 1]")
        .Attr("padding", AttrType::kString, std::string("VALID"), "\"VALID\" or \"SAME\" (TensorFlow's rules)")
        .Attr("dilations", AttrType::kIntList, std::vector<int64_t>{1, 1},
              "[dilation_h, dilation_w] or [1, dilation_h, dilation_w, 1]")
        .Attr("activation", AttrType::kString, std::string("none"), "\"none\" or \"relu\"")
        .Attr("spans", AttrType::kIntList, std::vector<int64_t>{},
              "the script locations of the conv2d, bias_add (and relu) it stands for (interned)")
        .TypeAttr("T", FloatTypes())
        .Output("output", "T")
        .SetShapeFn(ShapeFn)
        .SetCostFn(Cost)
        .NoGradient("made by the optimizer after gradients are built")
        .Doc("activation(bias_add(conv2d(input, filter), bias)) in one kernel: NHWC `input`, HWIO `filter`, "
             "`bias` [out_channels]; activation \"none\" or \"relu\". The graph optimizer makes these from "
             "conv2d -> bias_add -> relu chains (docs/graph-optimizations.md)."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<Conv2DBiasActivationKernel>());

}  // namespace
}  // namespace tfg::nn::conv2d_bias_activation
