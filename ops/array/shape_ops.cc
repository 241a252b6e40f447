// shape(x, out_type=i32), size(x, out_type=i32), rank(x): x's dimensions,
// element count and rank as tensors. They read only x's shape.
#include <limits>

#include "ops/array/array_util.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Stores v into element i of an i32 or i64 tensor; i32 overflow is an error.
Status StoreInt(Tensor& t, int64_t i, int64_t v, std::string_view op) {
  if (t.dtype() == DType::kI64) {
    t.data<int64_t>()[i] = v;
    return Status::OK();
  }
  if (v > std::numeric_limits<int32_t>::max()) {
    return InvalidArgument("{}: {} does not fit in i32; use out_type=i64", op, v);
  }
  t.data<int32_t>()[i] = static_cast<int32_t>(v);
  return Status::OK();
}

Status ShapeShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  c.set_output(0, in.known_rank() ? PartialShape({in.rank()}) : PartialShape::UnknownOfRank(1));
  return Status::OK();
}

class ShapeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({x.rank()})));
    for (int i = 0; i < x.rank(); ++i) TFG_RETURN_IF_ERROR(StoreInt(*out, i, x.dim(i), "shape"));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

class SizeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape()));
    return StoreInt(*out, 0, ctx.input(0).num_elements(), "size");
  }
  bool IsExpensive() const override { return false; }
};

class RankKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape()));
    out->data<int32_t>()[0] = ctx.input(0).rank();
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("shape")
                    .Input("x", "T")
                    .TypeAttr("out_type", {DType::kI32, DType::kI64}, DType::kI32)
                    .Output("y", "out_type")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(ShapeShapeFn)
                    .NoGradient("integer output")
                    .Doc("x's dimensions as a 1-D integer tensor."));
TFG_REGISTER_KERNEL(KernelDef("shape", DeviceType::kCpu).Create<ShapeKernel>());

TFG_REGISTER_OP(OpDefBuilder("size")
                    .Input("x", "T")
                    .TypeAttr("out_type", {DType::kI32, DType::kI64}, DType::kI32)
                    .Output("y", "out_type")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("integer output")
                    .Doc("The number of elements of x, as a scalar."));
TFG_REGISTER_KERNEL(KernelDef("size", DeviceType::kCpu).Create<SizeKernel>());

TFG_REGISTER_OP(OpDefBuilder("rank")
                    .Input("x", "T")
                    .Output("y", "i32")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("integer output")
                    .Doc("The number of dimensions of x, as an i32 scalar."));
TFG_REGISTER_KERNEL(KernelDef("rank", DeviceType::kCpu).Create<RankKernel>());

}  // namespace tfg
