// argmax(x, axis=0, output_type=i64) and argmin: the index of the first
// largest (smallest) element along `axis`; the first NaN wins, as in NumPy.
#include <string>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/reduction.h"

namespace tfg {
namespace {

struct ArgMaxCmp {
  template <typename T>
  static bool Better(T v, T best) { return v > best || (v != v && best == best); }
};
struct ArgMinCmp {
  template <typename T>
  static bool Better(T v, T best) { return v < best || (v != v && best == best); }
};

// Checks the input and axis; returns the axis as a non-negative index.
Result<int> ResolveAxis(const std::string& op, const PartialShape& shape, int64_t axis) {
  if (shape.rank() == 0) return InvalidArgument("{}: input must have rank >= 1, got a scalar", op);
  const AttrValue axis_value(axis);
  TFG_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReductionAxes(op, &axis_value, shape));
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i]) return static_cast<int>(i);
  }
  return Internal("{}: no axis resolved", op);
}

int64_t AxisAttr(const AttrMap& attrs) {
  const int64_t* axis = FindAttr<int64_t>(attrs, "axis");
  return axis ? *axis : 0;
}

Status ArgShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(int axis, ResolveAxis(c.op().name, in, AxisAttr(c.attrs())));
  std::vector<int64_t> dims = in.dims();
  dims.erase(dims.begin() + axis);
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// x viewed as [outer, n, inner]; out is [outer, inner].
template <typename Cmp, typename T, typename Out>
void ArgReduce(OpKernelContext& ctx, const T* x, Out* out, int64_t outer, int64_t n, int64_t inner) {
  ctx.ParallelFor(outer * inner, n, [&](int64_t s, int64_t e) {
    for (int64_t u = s; u < e; ++u) {
      const int64_t o = u / inner, j = u % inner;
      const T* p = x + o * n * inner + j;
      T best = p[0];
      int64_t best_i = 0;
      for (int64_t i = 1; i < n; ++i) {
        if (Cmp::Better(p[i * inner], best)) {
          best = p[i * inner];
          best_i = i;
        }
      }
      out[u] = static_cast<Out>(best_i);
    }
  });
}

template <typename Cmp>
class ArgKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    axis_ = AxisAttr(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(int axis, ResolveAxis(op, PartialShape(x.shape()), axis_));
    std::vector<int64_t> dims = x.shape().dims();
    const int64_t n = dims[axis];
    dims.erase(dims.begin() + axis);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    if (out->num_elements() == 0) return Status::OK();
    if (n == 0) {
      return InvalidArgument("{}: axis {} of input shape {} is empty", op, axis_, x.shape().ToString());
    }
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const bool wide = out->dtype() == DType::kI64;
    bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, {
      if (wide) {
        ArgReduce<Cmp>(ctx, x.data<T>(), out->data<int64_t>(), outer, n, inner);
      } else {
        ArgReduce<Cmp>(ctx, x.data<T>(), out->data<int32_t>(), outer, n, inner);
      }
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

OpDefBuilder ArgOp(const char* name, const char* doc) {
  OpDefBuilder b(name);
  b.Input("x", "T")
      .Attr("axis", AttrType::kInt, int64_t{0}, "the axis to search; negative counts from the end")
      .TypeAttr("output_type", {DType::kI32, DType::kI64}, DType::kI64)
      .TypeAttr("T", NumberTypes())
      .Output("index", "output_type")
      .SetShapeFn(ArgShapeFn)
      .NoGradient("integer output")
      .Doc(doc);
  return b;
}

TFG_REGISTER_OP(ArgOp("argmax", "Index of the first largest element along `axis` (the first NaN wins)."));
TFG_REGISTER_OP(ArgOp("argmin", "Index of the first smallest element along `axis` (the first NaN wins)."));
TFG_REGISTER_KERNEL(KernelDef("argmax", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<ArgKernel<ArgMaxCmp>>());
TFG_REGISTER_KERNEL(KernelDef("argmin", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<ArgKernel<ArgMinCmp>>());

}  // namespace
}  // namespace tfg
