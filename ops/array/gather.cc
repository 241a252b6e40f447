// gather(params, indices, axis=0): picks slices of params along `axis` by
// index; output shape params[:axis] + indices.shape + params[axis+1:].
#include "ops/array/gather.h"

#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {

namespace array {

std::vector<int64_t> GatheredDims(const std::vector<int64_t>& params, const std::vector<int64_t>& indices, int axis) {
  std::vector<int64_t> dims(params.begin(), params.begin() + axis);
  dims.insert(dims.end(), indices.begin(), indices.end());
  dims.insert(dims.end(), params.begin() + axis + 1, params.end());
  return dims;
}

GatherLayout MakeGatherLayout(const TensorShape& params, const TensorShape& indices, int axis) {
  const std::vector<int64_t>& dims = params.dims();
  GatherLayout l;
  l.axis = axis;
  l.outer = DimProduct(dims, 0, axis);
  l.limit = params.dim(axis);
  l.inner = DimProduct(dims, axis + 1, params.rank());
  l.gathered = TensorShape(GatheredDims(dims, indices.dims(), axis));
  return l;
}

Result<GatherLayout> GatherLayoutOf(const TensorShape& params, const TensorShape& indices, int64_t axis) {
  if (params.rank() == 0) return InvalidArgument("gather: params must have rank >= 1, got a scalar");
  TFG_ASSIGN_OR_RETURN(int ax, NormalizeAxis("gather", axis, params.rank()));
  return MakeGatherLayout(params, indices, ax);
}

}  // namespace array

namespace {

Status GatherShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t axis, array::RequiredAttr<int64_t>(c.attrs(), "gather", "axis"));
  const PartialShape& params = c.input(0);
  const PartialShape& indices = c.input(1);
  if (params.known_rank() && params.rank() == 0) return InvalidArgument("gather: params must have rank >= 1, got a scalar");
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("gather", axis, params.rank()));
  c.set_output(0, PartialShape(array::GatheredDims(params.dims(), indices.dims(), ax)));
  return Status::OK();
}

// Indices as int64, checked against [0, limit).
template <typename I>
Result<std::vector<int64_t>> CheckedIndices(const Tensor& indices, int64_t limit, int axis, const Tensor& params) {
  const I* idx = indices.data<I>();
  std::vector<int64_t> out(indices.num_elements());
  const std::vector<int64_t> strides = array::RowMajorStrides(indices.shape().dims());
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    out[i] = static_cast<int64_t>(idx[i]);
    if (out[i] < 0 || out[i] >= limit) {
      std::vector<int64_t> pos(strides.size());
      for (size_t d = 0; d < strides.size(); ++d) pos[d] = (i / strides[d]) % indices.dim(static_cast<int>(d));
      return InvalidArgument("gather: index {} at position {} of indices is out of range [0, {}) for axis {} of params {}",
                             out[i], array::IntListToString(pos), limit, axis, params.DebugString());
    }
  }
  return out;
}

class GatherKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, "gather", "axis"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(array::GatherLayout l, array::GatherLayoutOf(params.shape(), indices.shape(), axis_));
    const int64_t limit = l.limit;
    auto idx = indices.dtype() == DType::kI32 ? CheckedIndices<int32_t>(indices, limit, l.axis, params)
                                              : CheckedIndices<int64_t>(indices, limit, l.axis, params);
    if (!idx.ok()) return idx.status();
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, l.gathered));
    // An empty output may still have 2**31 outer rows of nothing to copy.
    if (out->num_elements() == 0) return Status::OK();
    const int64_t outer = l.outer, inner = l.inner;
    const int64_t n = static_cast<int64_t>(idx->size());
    const std::vector<int64_t>& ids = *idx;
    ctx.ParallelFor(outer * n, inner + 20, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t o = j / n, i = j % n;
        array::CopyElements(params.dtype(), array::ElementPtr(*out, j * inner),
                            array::ElementPtr(params, (o * limit + ids[i]) * inner), inner);
      }
    });
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

// dparams = gather_grad (ops/nn): dy's slices added at the indices.
Status GatherGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("gather_grad", {dy, g.input(1), g.input(0)},
                                              {{"axis", *g.node->attr<int64_t>("axis")}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("gather")
                    .Input("params", "T")
                    .Input("indices", "Tindices")
                    .Attr("axis", AttrType::kInt, int64_t{0}, "the axis of params that indices select along")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .SetShapeFn(GatherShapeFn)
                    .SetGradFn(GatherGrad)
                    .Doc("Selects slices of params along `axis`: output[..., i, ...] = params[..., indices[i], ...]. "
                         "Output shape: params.shape[:axis] + indices.shape + params.shape[axis+1:]. An index out "
                         "of range is an error."));
TFG_REGISTER_KERNEL(KernelDef("gather", DeviceType::kCpu).Create<GatherKernel>());

}  // namespace tfg
