// argwhere(cond): the coordinates of cond's true (non-zero) elements, one
// row each in row-major order, as i64 [n, rank(cond)] (NumPy's argwhere,
// TensorFlow's one-argument tf.where; `where(cond)` alone calls it).
#include <algorithm>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status ArgwhereShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  c.set_output(0, PartialShape({PartialShape::kUnknown, in.known_rank() ? in.rank() : PartialShape::kUnknown}));
  return Status::OK();
}

template <typename T>
bool IsTrue(const T& v) {
  return v != T(0);
}

template <typename T>
Status FillCoordinates(OpKernelContext& ctx, const Tensor& x) {
  const T* p = x.data<T>();
  const int64_t total = x.num_elements();
  int64_t n = 0;
  for (int64_t i = 0; i < total; ++i) n += IsTrue(p[i]) ? 1 : 0;
  const int rank = x.rank();
  TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({n, rank})));
  int64_t* o = out->data<int64_t>();
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < total; ++i) {
    if (IsTrue(p[i])) o = std::copy(coord.begin(), coord.end(), o);
    // The next element's coordinates: the last dimension counts fastest.
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < x.dim(d)) break;
      coord[d] = 0;
    }
  }
  return Status::OK();
}

class ArgwhereKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Status status;
    bool handled = x.dtype() == DType::kBool
                       ? (status = FillCoordinates<bool>(ctx, x), true)
                       : TFG_DISPATCH_NUMBER(x.dtype(), T, { status = FillCoordinates<T>(ctx, x); });
    if (!handled) return Unimplemented("argwhere: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    return status;
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("argwhere")
                    .Input("cond", "T")
                    .Output("index", "i64")
                    .TypeAttr("T", RealTypes())
                    .SetShapeFn(ArgwhereShapeFn)
                    .NoGradient("integer output")
                    .Doc("The coordinates of cond's true (non-zero) elements in row-major order, as i64 [n, "
                         "rank(cond)], n unknown until it runs (NumPy's argwhere). `where(cond)` with only cond "
                         "is this op, as TensorFlow's one-argument tf.where."));
TFG_REGISTER_KERNEL(KernelDef("argwhere", DeviceType::kCpu).Create<ArgwhereKernel>());

}  // namespace tfg
