// strided_slice(x, begin, end, strides, begin_mask=0, end_mask=0,
// shrink_axis_mask=0, new_axis_mask=0, ellipsis_mask=0): NumPy-style basic
// indexing with TensorFlow's semantics (see strided_slice_plan.h). The
// interpreter lowers `t[1:, ::2]`, `t[0]`, `t[::-1]`, `t[..., None]` to it.
#include "ops/array/array_util.h"
#include "ops/array/strided_slice_plan.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status StridedSliceShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(array::StridedSliceSpec spec, array::ReadStridedSliceSpec(c.attrs(), "strided_slice"));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(array::StridedSlicePlan plan, array::PlanStridedSlice(spec, in.dims()));
  c.set_output(0, PartialShape(plan.output_dims));
  return Status::OK();
}

class StridedSliceKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(spec_, array::ReadStridedSliceSpec(*c.attrs, "strided_slice"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(array::StridedSlicePlan plan, array::PlanStridedSlice(spec_, x.shape().dims()));
    std::vector<int64_t> strides;
    const int64_t offset = array::SliceOffsetAndSteps(plan, x.shape().dims(), strides);
    // Copy over the input's dims, then relabel: shrunk dims have extent 1
    // and new axes add 1s, so the element order is the same.
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(plan.extents)));
    array::StridedCopy(ctx, x, offset, plan.extents, strides, *out);
    *out = out->Reshaped(TensorShape(plan.output_dims));
    return Status::OK();
  }

 private:
  array::StridedSliceSpec spec_;
};

// The slice's elements go back where they came from; the rest get zero.
Status StridedSliceGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("strided_slice_grad", {dy, g.input(0)}, array::StridedSliceAttrs(g.node->attrs())));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(array::AddStridedSliceAttrs(OpDefBuilder("strided_slice").Input("x", "T"))
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(StridedSliceShapeFn)
                    .SetGradFn(StridedSliceGrad)
                    .Doc("Basic indexing `x[begin:end:stride, ...]` with TensorFlow's semantics: negative indices "
                         "count from the end, out-of-range slice bounds are clamped, a plain index out of range is "
                         "an error."));
TFG_REGISTER_KERNEL(KernelDef("strided_slice", DeviceType::kCpu).Create<StridedSliceKernel>());

}  // namespace tfg
