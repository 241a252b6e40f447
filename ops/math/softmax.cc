// softmax(logits, axis=-1) and log_softmax: normalized exponentials along
// `axis`, computed after subtracting the maximum so large logits neither
// overflow nor lose precision. Floats only; f16 computes in f32.
#include <Eigen/Core>
#include <cmath>
#include <type_traits>
#include <string>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/reduction.h"
#include "ops/math/softmax.h"

namespace tfg {
namespace {

Result<int> ResolveAxis(const std::string& op, const PartialShape& shape, int64_t axis) {
  return SingleAxis(op, "logits", shape, axis);
}

}  // namespace

int64_t SoftmaxAxisAttr(const AttrMap& attrs) {
  const int64_t* axis = FindAttr<int64_t>(attrs, "axis");
  return axis ? *axis : -1;
}

Result<SoftmaxLayout> MakeSoftmaxLayout(const std::string& op, const TensorShape& x, int64_t axis) {
  SoftmaxLayout l;
  TFG_ASSIGN_OR_RETURN(l.axis, ResolveAxis(op, PartialShape(x), axis));
  for (int d = 0; d < l.axis; ++d) l.outer *= x.dim(d);
  l.n = x.dim(l.axis);
  for (int d = l.axis + 1; d < x.rank(); ++d) l.inner *= x.dim(d);
  return l;
}

namespace {

Status SoftmaxShapeFn(ShapeContext& c) {
  if (c.input(0).known_rank()) {
    TFG_RETURN_IF_ERROR(ResolveAxis(c.op().name, c.input(0), SoftmaxAxisAttr(c.attrs())).status());
  }
  c.set_output(0, c.input(0));
  return Status::OK();
}

// One softmax over a contiguous line in compute type C, with Eigen's
// vectorized exp. A NaN anywhere makes the whole line NaN (through the sum).
template <bool kLog, typename C>
void SoftmaxContiguous(const C* x, C* y, int64_t n) {
  using Array = Eigen::Array<C, Eigen::Dynamic, 1>;
  const Eigen::Map<const Array> xs(x, n);
  Eigen::Map<Array> ys(y, n);
  const C max = xs.maxCoeff();
  ys = (xs - max).exp();
  const C sum = ys.sum();
  if constexpr (kLog) {
    ys = (xs - max) - std::log(sum);  // not xs - (max + log): max may be large
  } else {
    ys *= C(1) / sum;
  }
}

// Lines [begin, end) of x viewed as [outer, n, inner], softmax along n.
// Lines that are not contiguous in compute type go through `buf`.
template <bool kLog, typename C, typename T>
void SoftmaxLines(const T* x, T* y, int64_t n, int64_t inner, int64_t begin, int64_t end) {
  std::vector<C> buf;
  for (int64_t l = begin; l < end; ++l) {
    const int64_t off = (l / inner) * n * inner + l % inner;
    if constexpr (std::is_same_v<C, T>) {
      if (inner == 1) {
        SoftmaxContiguous<kLog, C>(x + off, y + off, n);
        continue;
      }
    }
    buf.resize(2 * n);
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<C>(x[off + i * inner]);
    SoftmaxContiguous<kLog, C>(buf.data(), buf.data() + n, n);
    for (int64_t i = 0; i < n; ++i) y[off + i * inner] = static_cast<T>(buf[n + i]);
  }
}

template <bool kLog>
class SoftmaxKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    axis_ = SoftmaxAxisAttr(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(SoftmaxLayout l, MakeSoftmaxLayout(op, x.shape(), axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    if (x.num_elements() == 0) return Status::OK();
    const int64_t n = l.n, inner = l.inner, lines = l.outer * l.inner;
    auto run = [&](auto tag, auto compute) {
      using T = decltype(tag);
      using C = decltype(compute);
      const T* px = x.data<T>();
      T* py = out->data<T>();
      ctx.ParallelFor(lines, 10 * n, [&](int64_t s, int64_t e) { SoftmaxLines<kLog, C>(px, py, n, inner, s, e); });
    };
    switch (x.dtype()) {
      case DType::kF16: run(half{}, float{}); break;
      case DType::kF32: run(float{}, float{}); break;
      case DType::kF64: run(double{}, double{}); break;
      default: return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    }
    return Status::OK();
  }

 private:
  int64_t axis_ = -1;
};

// The fused helpers of ops/math/softmax_grad.cc work from the output y.
GradFn SoftmaxGrad(const char* grad_op) {
  return [grad_op](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
    const AttrMap attrs = {{"axis", SoftmaxAxisAttr(g.node->attrs())}};
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(grad_op, {dy, g.output(0)}, attrs));
    return Status::OK();
  };
}

OpDefBuilder SoftmaxOp(const char* name, const char* grad_op, const char* doc) {
  OpDefBuilder b(name);
  b.Input("logits", "T")
      .Attr("axis", AttrType::kInt, int64_t{-1}, "the axis to normalize over; negative counts from the end")
      .TypeAttr("T", FloatTypes())
      .Output("y", "T")
      .SetShapeFn(SoftmaxShapeFn)
      .SetGradFn(SoftmaxGrad(grad_op))
      .Doc(doc);
  return b;
}

TFG_REGISTER_OP(SoftmaxOp("softmax", "softmax_grad", "exp(x) / sum(exp(x)) along `axis`, computed stably."));
TFG_REGISTER_OP(SoftmaxOp("log_softmax", "log_softmax_grad", "x - log(sum(exp(x))) along `axis`, computed stably."));
TFG_REGISTER_KERNEL(KernelDef("softmax", DeviceType::kCpu).Create<SoftmaxKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef("log_softmax", DeviceType::kCpu).Create<SoftmaxKernel<true>>());

}  // namespace
}  // namespace tfg
