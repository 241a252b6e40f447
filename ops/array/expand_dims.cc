// expand_dims(x, axis): inserts a dimension of size 1 at `axis` (in
// [-rank-1, rank]; negative counts from the end). Shares x's buffer.
#include "ops/array/array_grad.h"
#include "ops/array/array_util.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Result<std::vector<int64_t>> ExpandDims(std::vector<int64_t> dims, int64_t axis) {
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("expand_dims", axis, static_cast<int>(dims.size()) + 1));
  dims.insert(dims.begin() + ax, 1);
  return dims;
}

Status ExpandDimsShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t axis, array::RequiredAttr<int64_t>(c.attrs(), "expand_dims", "axis"));
  if (!c.input(0).known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ExpandDims(c.input(0).dims(), axis));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

class ExpandDimsKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, "expand_dims", "axis"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ExpandDims(x.shape().dims(), axis_));
    ctx.set_output(0, x.Reshaped(TensorShape(std::move(dims))));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  int64_t axis_ = 0;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("expand_dims")
                    .Input("x", "T")
                    .Attr("axis", AttrType::kInt, std::nullopt, "where the new dimension goes")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetGradFn(ReshapeToInputGrad)
                    .SetShapeFn(ExpandDimsShapeFn)
                    .Doc("Inserts a dimension of size 1 at `axis` (-1 appends one at the end)."));
TFG_REGISTER_KERNEL(KernelDef("expand_dims", DeviceType::kCpu).Create<ExpandDimsKernel>());

}  // namespace tfg
