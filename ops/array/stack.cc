// stack(values, axis=0): joins N tensors of one shape along a new axis.
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// The common shape of the inputs (merged) and the output shape.
Result<PartialShape> StackOutput(const std::vector<PartialShape>& ins, int64_t axis, int* ax_out) {
  if (ins.empty()) return InvalidArgument("stack: needs at least one tensor");
  PartialShape common = PartialShape::Unknown();
  for (size_t k = 0; k < ins.size(); ++k) {
    auto merged = common.Merge(ins[k]);
    if (!merged.ok()) {
      return InvalidArgument("stack: input {} has shape {} but the inputs before it have shape {}; all must match", k,
                             ins[k].ToString(), common.ToString());
    }
    common = *merged;
  }
  const int64_t n = static_cast<int64_t>(ins.size());
  if (!common.known_rank()) return PartialShape::Unknown();
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("stack", axis, common.rank() + 1));
  std::vector<int64_t> dims = common.dims();
  dims.insert(dims.begin() + ax, n);
  *ax_out = ax;
  return PartialShape(std::move(dims));
}

Status StackShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t axis, array::RequiredAttr<int64_t>(c.attrs(), "stack", "axis"));
  std::vector<PartialShape> ins = array::InputShapes(c);
  int ax = 0;
  TFG_ASSIGN_OR_RETURN(PartialShape out, StackOutput(ins, axis, &ax));
  c.set_output(0, std::move(out));
  return Status::OK();
}

class StackKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, "stack", "axis"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    std::vector<const Tensor*> ins;
    std::vector<PartialShape> shapes = array::InputShapes(ctx, &ins);
    int ax = 0;
    TFG_ASSIGN_OR_RETURN(PartialShape shape, StackOutput(shapes, axis_, &ax));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape.ToTensorShape()));
    array::ConcatRows(ctx, ins, array::DimProduct(shape.dims(), 0, ax), *out);
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

// Input k's gradient is slice k of dy along the new axis, in x_k's shape.
Status StackGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const int64_t n = static_cast<int64_t>(g.node->inputs().size());
  TFG_ASSIGN_OR_RETURN(Node * split, g.OpNode("split", {dy}, {{"num", n}, {"axis", *g.node->attr<int64_t>("axis")}}));
  for (int k = 0; k < n; ++k) {
    TFG_ASSIGN_OR_RETURN(g.input_grads[k], g.Op("reshape_like", {split->output(k), g.input(k)}));
  }
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("stack")
                    .InputList("values", "T")
                    .Attr("axis", AttrType::kInt, int64_t{0}, "where the new axis goes; negative counts from the end")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(StackShapeFn)
                    .SetGradFn(StackGrad)
                    .Doc("Stacks N tensors of the same shape into one of rank+1, the new axis (of size N) at "
                         "`axis`."));
TFG_REGISTER_KERNEL(KernelDef("stack", DeviceType::kCpu).Create<StackKernel>());

}  // namespace tfg
