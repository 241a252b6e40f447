// fill(dims, value): a tensor of shape `dims` with every element `value`
// (a scalar tensor of any dtype).
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status FillShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto dims, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "fill", "dims"));
  TFG_ASSIGN_OR_RETURN(TensorShape shape, array::ShapeFromDims("fill", dims));
  const PartialShape& value = c.input(0);
  if (value.known_rank() && value.rank() != 0) {
    return InvalidArgument("fill: value must be a scalar, got shape {}", value.ToString());
  }
  c.set_output(0, shape);
  return Status::OK();
}

class FillKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(auto dims, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "fill", "dims"));
    TFG_ASSIGN_OR_RETURN(shape_, array::ShapeFromDims("fill", dims));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    if (value.rank() != 0) return InvalidArgument("fill: value must be a scalar, got shape {}", value.shape().ToString());
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape_));
    array::FillElements(value.dtype(), out->raw_data(), value.raw_data(), out->num_elements());
    return Status::OK();
  }

 private:
  TensorShape shape_;
};

// Every output element is `value`: dvalue = sum(dy).
Status FillGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("sum", {dy}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("fill")
                    .Attr("dims", AttrType::kIntList, std::nullopt, "the output shape")
                    .Input("value", "T")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(FillShapeFn)
                    .SetGradFn(FillGrad)
                    .Doc("A tensor of shape `dims` whose every element is the scalar `value`."));
TFG_REGISTER_KERNEL(KernelDef("fill", DeviceType::kCpu).Create<FillKernel>());

}  // namespace tfg
