// zeros(shape, dtype=f32), ones(shape, dtype=f32), zeros_like(x),
// ones_like(x): constant-filled tensors. Zeros of string are "".
#include "ops/array/array_util.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status ShapeAttrFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto dims, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), c.op().name, "shape"));
  TFG_ASSIGN_OR_RETURN(TensorShape shape, array::ShapeFromDims(c.op().name, dims));
  c.set_output(0, shape);
  return Status::OK();
}

// Fills output 0 with `value` converted to its dtype. With `like`, the shape
// comes from input 0; otherwise from the `shape` attr.
template <int kValue, bool kLike>
class ConstantFillKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const std::string& op = c.op->name;
    if (!kLike) {
      TFG_ASSIGN_OR_RETURN(auto dims, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, op, "shape"));
      TFG_ASSIGN_OR_RETURN(shape_, array::ShapeFromDims(op, dims));
    }
    TFG_ASSIGN_OR_RETURN(value_, array::ScalarOfType(op, c.output_types[0], kValue));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, kLike ? ctx.input(0).shape() : shape_));
    array::FillElements(out->dtype(), out->raw_data(), value_.raw_data(), out->num_elements());
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  TensorShape shape_;
  Tensor value_;
};

using ZerosKernel = ConstantFillKernel<0, false>;
using OnesKernel = ConstantFillKernel<1, false>;
using ZerosLikeKernel = ConstantFillKernel<0, true>;
using OnesLikeKernel = ConstantFillKernel<1, true>;

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("zeros")
                    .Attr("shape", AttrType::kIntList, std::nullopt, "the output shape")
                    .TypeAttr("dtype", AllTypes(), DType::kF32)
                    .Output("y", "dtype")
                    .SetShapeFn(ShapeAttrFn)
                    .NoGradient("no inputs")
                    .Doc("A tensor of the given shape and dtype filled with zeros (\"\" for strings)."));
TFG_REGISTER_KERNEL(KernelDef("zeros", DeviceType::kCpu).Create<ZerosKernel>());

TFG_REGISTER_OP(OpDefBuilder("ones")
                    .Attr("shape", AttrType::kIntList, std::nullopt, "the output shape")
                    .TypeAttr("dtype", RealTypes(), DType::kF32)
                    .Output("y", "dtype")
                    .SetShapeFn(ShapeAttrFn)
                    .NoGradient("no inputs")
                    .Doc("A tensor of the given shape and dtype filled with ones (true for bool)."));
TFG_REGISTER_KERNEL(KernelDef("ones", DeviceType::kCpu).Create<OnesKernel>());

TFG_REGISTER_OP(OpDefBuilder("zeros_like")
                    .Input("x", "T")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("the output does not depend on x's values")
                    .Doc("Zeros of x's shape and dtype."));
TFG_REGISTER_KERNEL(KernelDef("zeros_like", DeviceType::kCpu).Create<ZerosLikeKernel>());

TFG_REGISTER_OP(OpDefBuilder("ones_like")
                    .Input("x", "T")
                    .Output("y", "T")
                    .TypeAttr("T", RealTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("the output does not depend on x's values")
                    .Doc("Ones of x's shape and dtype."));
TFG_REGISTER_KERNEL(KernelDef("ones_like", DeviceType::kCpu).Create<OnesLikeKernel>());

}  // namespace tfg
