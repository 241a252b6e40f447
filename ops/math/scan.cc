// cumsum(x, axis=0, exclusive=false, reverse=false) and cumprod: running
// sums and products along `axis`, as tf.math.cumsum / tf.math.cumprod.
// `exclusive` leaves the current element out (the first output is 0 for
// cumsum, 1 for cumprod); `reverse` scans from the end. Both share one
// kernel template; f16 accumulates in f32 (each output rounded once),
// integers wrap around on overflow. The input must have rank >= 1.
//
// Gradients, as TensorFlow's _CumsumGrad and _CumprodGrad:
//   d cumsum  = cumsum(dy, axis, exclusive, reverse=!reverse)
//   d cumprod = cumsum(y * dy, axis, exclusive, reverse=!reverse) / x
// The latter divides by x, so (as in TensorFlow) it is not defined where x
// has zeros.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/reduction.h"

namespace tfg::math::scan {
namespace {

struct ScanAttrs {
  int64_t axis = 0;
  bool exclusive = false;
  bool reverse = false;
};

ScanAttrs ReadScanAttrs(const AttrMap& attrs) {
  ScanAttrs a;
  if (const int64_t* axis = FindAttr<int64_t>(attrs, "axis")) a.axis = *axis;
  if (const bool* exclusive = FindAttr<bool>(attrs, "exclusive")) a.exclusive = *exclusive;
  if (const bool* reverse = FindAttr<bool>(attrs, "reverse")) a.reverse = *reverse;
  return a;
}

Result<int> ScanAxis(const std::string& op, const PartialShape& shape, int64_t axis) {
  return SingleAxis(op, "input", shape, axis);
}

Status ScanShapeFn(ShapeContext& c) {
  if (c.input(0).known_rank()) {
    TFG_RETURN_IF_ERROR(ScanAxis(c.op().name, c.input(0), ReadScanAttrs(c.attrs()).axis).status());
  }
  c.set_output(0, c.input(0));
  return Status::OK();
}

template <typename T> struct ScanAccOf { using type = T; };
template <> struct ScanAccOf<half> { using type = float; };

struct SumScan {
  template <typename A> static A Identity() { return A(0); }
  template <typename A> static A Combine(A a, A b) { return functor::WrapAdd(a, b); }
};
struct ProdScan {
  template <typename A> static A Identity() { return A(1); }
  template <typename A> static A Combine(A a, A b) { return functor::WrapMul(a, b); }
};

// x viewed as [outer, n, inner], every (outer, inner) line scanned along n.
// Work is split into tiles of up to kTile inner positions of one outer
// index; a tile walks the n rows in scan order with one accumulator per
// position, so the innermost loop reads contiguous memory.
template <typename S, typename T>
void ScanLines(const OpKernelContext& ctx, const T* x, T* y, int64_t outer, int64_t n, int64_t inner,
               bool exclusive, bool reverse) {
  using A = typename ScanAccOf<T>::type;
  constexpr int64_t kTile = 256;
  const int64_t tiles = (inner + kTile - 1) / kTile;
  ctx.ParallelFor(outer * tiles, n * std::min(kTile, inner), [&](int64_t s, int64_t e) {
    A acc[kTile];
    for (int64_t u = s; u < e; ++u) {
      const int64_t o = u / tiles, j0 = (u % tiles) * kTile, len = std::min(kTile, inner - j0);
      std::fill(acc, acc + len, S::template Identity<A>());
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = reverse ? n - 1 - step : step;
        const int64_t off = (o * n + i) * inner + j0;
        const T* xr = x + off;
        T* yr = y + off;
        if (exclusive) {
          for (int64_t j = 0; j < len; ++j) {
            yr[j] = static_cast<T>(acc[j]);
            acc[j] = S::Combine(acc[j], static_cast<A>(xr[j]));
          }
        } else {
          for (int64_t j = 0; j < len; ++j) {
            acc[j] = S::Combine(acc[j], static_cast<A>(xr[j]));
            yr[j] = static_cast<T>(acc[j]);
          }
        }
      }
    }
  });
}

template <typename S>
class ScanKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadScanAttrs(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(int axis, ScanAxis(op, PartialShape(x.shape()), attrs_.axis));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    if (x.num_elements() == 0) return Status::OK();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t n = x.dim(axis);
    bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, {
      ScanLines<S>(ctx, x.data<T>(), out->data<T>(), outer, n, inner, attrs_.exclusive, attrs_.reverse);
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  ScanAttrs attrs_;
};

// cumsum(v) with the node's axis and exclusive, scanning the other way.
Result<Output> ReverseCumsum(GradContext& g, Output v) {
  const ScanAttrs a = ReadScanAttrs(g.node->attrs());
  return g.Op("cumsum", {v}, {{"axis", a.axis}, {"exclusive", a.exclusive}, {"reverse", !a.reverse}});
}

Status CumsumGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], ReverseCumsum(g, dy));
  return Status::OK();
}

// TensorFlow's _CumprodGrad: cumsum(y * dy, exclusive, !reverse) / x.
Status CumprodGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output weighted, g.Op("mul", {g.output(0), dy}));
  TFG_ASSIGN_OR_RETURN(Output summed, ReverseCumsum(g, weighted));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("div", {summed, g.input(0)}));
  return Status::OK();
}

OpDefBuilder ScanOp(const char* name, GradFn grad, const char* doc) {
  OpDefBuilder b(name);
  b.Input("x", "T")
      .Attr("axis", AttrType::kInt, int64_t{0}, "the axis to scan along; negative counts from the end")
      .Attr("exclusive", AttrType::kBool, false, "leave each element out of its own output")
      .Attr("reverse", AttrType::kBool, false, "scan from the last element to the first")
      .TypeAttr("T", NumberTypes())
      .Output("y", "T")
      .SetShapeFn(ScanShapeFn)
      .SetGradFn(std::move(grad))
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(ScanOp("cumsum", CumsumGrad,
                       "Running sum along `axis` (tf.math.cumsum): y[i] = x[0] + ... + x[i]; `exclusive` leaves "
                       "x[i] out (y[0] = 0), `reverse` sums from the end. The input must have rank >= 1; f16 "
                       "accumulates in f32. Gradient: cumsum(dy) the other way."));
TFG_REGISTER_OP(ScanOp("cumprod", CumprodGrad,
                       "Running product along `axis` (tf.math.cumprod): y[i] = x[0] * ... * x[i]; `exclusive` "
                       "leaves x[i] out (y[0] = 1), `reverse` multiplies from the end. The input must have rank "
                       ">= 1; f16 accumulates in f32. Gradient: TensorFlow's cumsum(y * dy) the other way, divided "
                       "by x, which like TensorFlow's is not defined where x has zeros."));
TFG_REGISTER_KERNEL(KernelDef("cumsum", DeviceType::kCpu).Create<ScanKernel<SumScan>>());
TFG_REGISTER_KERNEL(KernelDef("cumprod", DeviceType::kCpu).Create<ScanKernel<ProdScan>>());

}  // namespace tfg::math::scan
