// strided_slice_grad(dy, like, begin, end, strides, masks...): the gradient
// of strided_slice(x, ...) for x shaped like `like`: zeros of that shape
// with dy written back at the positions the slice read.
#include <cstring>

#include "ops/array/array_util.h"
#include "ops/array/strided_slice_plan.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

constexpr std::string_view kOp = "strided_slice_grad";

Status StridedSliceGradShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(array::StridedSliceSpec spec, array::ReadStridedSliceSpec(c.attrs(), kOp));
  const PartialShape& like = c.input(1);
  if (like.known_rank()) {
    TFG_ASSIGN_OR_RETURN(array::StridedSlicePlan plan, array::PlanStridedSlice(spec, like.dims()));
    if (!c.input(0).CompatibleWith(PartialShape(plan.output_dims))) {
      return InvalidArgument("{}: dy has shape {} but the slice of {} has shape {}", kOp, c.input(0).ToString(),
                             like.ToString(), PartialShape(plan.output_dims).ToString());
    }
  }
  c.set_output(0, like);
  return Status::OK();
}

class StridedSliceGradKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(spec_, array::ReadStridedSliceSpec(*c.attrs, kOp));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& dy = ctx.input(0);
    const TensorShape& like = ctx.input(1).shape();
    TFG_ASSIGN_OR_RETURN(array::StridedSlicePlan plan, array::PlanStridedSlice(spec_, like.dims()));
    if (dy.shape() != TensorShape(plan.output_dims)) {
      return InvalidArgument("{}: dy has shape {} but the slice of {} has shape {}", kOp, dy.shape().ToString(),
                             like.ToString(), TensorShape(plan.output_dims).ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, like));
    // All-zero bytes are 0 for every number type.
    if (dx->bytes() > 0) std::memset(dx->raw_data(), 0, dx->bytes());
    std::vector<int64_t> strides;
    const int64_t offset = array::SliceOffsetAndSteps(plan, like.dims(), strides);
    array::StridedScatter(ctx, dy, plan.extents, offset, strides, *dx);
    return Status::OK();
  }

 private:
  array::StridedSliceSpec spec_;
};

// Linear in dy; its adjoint is the slice itself.
Status StridedSliceGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output ddx, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("strided_slice", {ddx}, array::StridedSliceAttrs(g.node->attrs())));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(array::AddStridedSliceAttrs(OpDefBuilder("strided_slice_grad").Input("dy", "T").Input("like", "Tlike"))
                    .Output("dx", "T")
                    .TypeAttr("T", NumberTypes())
                    .TypeAttr("Tlike", AllTypes())
                    .SetShapeFn(StridedSliceGradShapeFn)
                    .SetGradFn(StridedSliceGradGrad)
                    .Doc("The gradient of strided_slice(x, ...) for x shaped like `like`: zeros with dy placed "
                         "where the slice read its elements."));
TFG_REGISTER_KERNEL(KernelDef("strided_slice_grad", DeviceType::kCpu).Create<StridedSliceGradKernel>());

}  // namespace tfg
