// one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=f32):
// a new axis of size `depth` at `axis` that is on_value where it equals the
// index and off_value elsewhere. Indices outside [0, depth) give all-off
// rows (TensorFlow's rule), not an error.
#include "ops/array/array_util.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Result<int64_t> ReadDepth(const AttrMap& attrs) {
  TFG_ASSIGN_OR_RETURN(int64_t depth, array::RequiredAttr<int64_t>(attrs, "one_hot", "depth"));
  if (depth < 0) return InvalidArgument("one_hot: depth must be >= 0, got {}", depth);
  return depth;
}

// Where the new axis goes for indices of `rank`: -1 appends it.
Result<int> NewAxis(int64_t axis, int rank) {
  if (axis == -1) return rank;
  if (axis < 0 || axis > rank) {
    return InvalidArgument("one_hot: axis {} is out of range for indices of rank {} (expected -1 or 0..{})", axis,
                           rank, rank);
  }
  return static_cast<int>(axis);
}

Status OneHotShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t depth, ReadDepth(c.attrs()));
  TFG_ASSIGN_OR_RETURN(int64_t axis, array::RequiredAttr<int64_t>(c.attrs(), "one_hot", "axis"));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(int ax, NewAxis(axis, in.rank()));
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + ax, depth);
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

// Output viewed as [outer, depth, inner]: outer*inner indices, each owning
// a depth-long line with stride inner.
template <typename T, typename I>
void OneHotFill(const Tensor& indices, int64_t depth, int64_t inner, T on, T off, Tensor& out) {
  T* y = out.data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) y[i] = off;
  const I* idx = indices.data<I>();
  for (int64_t k = 0; k < indices.num_elements(); ++k) {
    const int64_t v = static_cast<int64_t>(idx[k]);
    if (v < 0 || v >= depth) continue;
    const int64_t o = k / inner, in = k % inner;
    y[(o * depth + v) * inner + in] = on;
  }
}

class OneHotKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(depth_, ReadDepth(*c.attrs));
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, "one_hot", "axis"));
    TFG_ASSIGN_OR_RETURN(on_, array::RequiredAttr<double>(*c.attrs, "one_hot", "on_value"));
    TFG_ASSIGN_OR_RETURN(off_, array::RequiredAttr<double>(*c.attrs, "one_hot", "off_value"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(int ax, NewAxis(axis_, indices.rank()));
    std::vector<int64_t> dims = indices.shape().dims();
    const int64_t inner = array::DimProduct(dims, ax, indices.rank());
    dims.insert(dims.begin() + ax, depth_);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    const bool i32 = indices.dtype() == DType::kI32;
    if (out->dtype() == DType::kBool) {
      Fill<bool>(i32, indices, inner, *out);
      return Status::OK();
    }
    TFG_DISPATCH_NUMBER(out->dtype(), T, { Fill<T>(i32, indices, inner, *out); });
    return Status::OK();
  }

 private:
  template <typename T>
  void Fill(bool i32, const Tensor& indices, int64_t inner, Tensor& out) const {
    const T on = static_cast<T>(on_), off = static_cast<T>(off_);
    if (i32) OneHotFill<T, int32_t>(indices, depth_, inner, on, off, out);
    else OneHotFill<T, int64_t>(indices, depth_, inner, on, off, out);
  }

  int64_t depth_ = 0, axis_ = -1;
  double on_ = 1, off_ = 0;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("one_hot")
                    .Input("indices", "TI")
                    .Attr("depth", AttrType::kInt, std::nullopt, "size of the new axis")
                    .Attr("on_value", AttrType::kFloat, 1.0, "value where the index matches (true is 1, for dtype=bool)")
                    .Attr("off_value", AttrType::kFloat, 0.0, "value elsewhere (false is 0)")
                    .Attr("axis", AttrType::kInt, int64_t{-1}, "position of the new axis; -1 = last")
                    .TypeAttr("dtype", RealTypes(), DType::kF32)
                    .Output("y", "dtype")
                    .TypeAttr("TI", {DType::kI32, DType::kI64})
                    .SetShapeFn(OneHotShapeFn)
                    .NoGradient("integer input")
                    .Doc("One-hot encoding: a new axis of size `depth` at `axis`, on_value at each index and "
                         "off_value elsewhere. Indices outside [0, depth) give rows of off_value."));
TFG_REGISTER_KERNEL(KernelDef("one_hot", DeviceType::kCpu).Create<OneHotKernel>());

}  // namespace tfg
