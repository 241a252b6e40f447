// concat(values, axis): joins a list of tensors along an existing axis.
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Output shape of concat of `ins` along `axis`; unknown dims stay unknown,
// mismatched ones are an error naming both inputs.
Result<PartialShape> ConcatOutput(const std::vector<PartialShape>& ins, int64_t axis) {
  if (ins.empty()) return InvalidArgument("concat: needs at least one tensor");
  int ref = -1;  // the first input of known rank
  for (size_t k = 0; k < ins.size() && ref < 0; ++k) {
    if (ins[k].known_rank()) ref = static_cast<int>(k);
  }
  if (ref < 0) return PartialShape::Unknown();
  const int rank = ins[ref].rank();
  if (rank == 0) return InvalidArgument("concat: cannot concatenate scalars (use stack instead)");
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("concat", axis, rank));
  std::vector<int64_t> dims(rank, PartialShape::kUnknown);
  std::vector<int> source(rank, ref);  // the input each known dim came from
  int64_t axis_sum = 0;
  for (size_t k = 0; k < ins.size(); ++k) {
    const PartialShape& s = ins[k];
    if (!s.known_rank()) {
      axis_sum = PartialShape::kUnknown;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      const bool clash = s.rank() != rank || (d != ax && s.dim(d) >= 0 && dims[d] >= 0 && s.dim(d) != dims[d]);
      if (clash) {
        const int other = s.rank() != rank ? ref : source[d];
        return InvalidArgument(
            "concat: input {} has shape {} but input {} has shape {}; all dimensions except axis {} must match", k,
            s.ToString(), other, ins[other].ToString(), ax);
      }
      if (d != ax && dims[d] < 0 && s.dim(d) >= 0) {
        dims[d] = s.dim(d);
        source[d] = static_cast<int>(k);
      }
    }
    if (axis_sum >= 0 && s.dim(ax) < 0) {
      axis_sum = PartialShape::kUnknown;
    } else if (axis_sum >= 0) {
      TFG_ASSIGN_OR_RETURN(axis_sum, checked::AddSize("concat", "size along the axis", axis_sum, s.dim(ax)));
    }
  }
  dims[ax] = axis_sum;
  return PartialShape(std::move(dims));
}

Status ConcatShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t axis, array::RequiredAttr<int64_t>(c.attrs(), "concat", "axis"));
  std::vector<PartialShape> ins = array::InputShapes(c);
  TFG_ASSIGN_OR_RETURN(PartialShape out, ConcatOutput(ins, axis));
  c.set_output(0, std::move(out));
  return Status::OK();
}

class ConcatKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, "concat", "axis"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    std::vector<const Tensor*> ins;
    std::vector<PartialShape> shapes = array::InputShapes(ctx, &ins);
    TFG_ASSIGN_OR_RETURN(PartialShape shape, ConcatOutput(shapes, axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape.ToTensorShape()));
    const int ax = static_cast<int>(axis_ < 0 ? axis_ + shape.rank() : axis_);
    array::ConcatRows(ctx, ins, array::DimProduct(shape.dims(), 0, ax), *out);
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

// Input k's gradient when the sizes along the axis are only known at run
// time: gather(dy, range(offset_k, offset_k + size_k), axis), the sizes read
// with shape(x_k)[axis].
Status RuntimeConcatGrad(GradContext& g, Output dy, int64_t axis) {
  TFG_ASSIGN_OR_RETURN(Output offset, g.Scalar(0, DType::kI32));
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, DType::kI32));
  const AttrMap pick = {{"begin", std::vector<int64_t>{axis}}, {"end", std::vector<int64_t>{axis + 1}},
                        {"shrink_axis_mask", int64_t{1}}};
  for (size_t k = 0; k < g.node->inputs().size(); ++k) {
    TFG_ASSIGN_OR_RETURN(Output shape, g.Op("shape", {g.input(static_cast<int>(k))}));
    TFG_ASSIGN_OR_RETURN(Output size, g.Op("strided_slice", {shape}, pick));
    TFG_ASSIGN_OR_RETURN(Output limit, g.Op("add", {offset, size}));
    TFG_ASSIGN_OR_RETURN(Output indices, g.Op("range", {offset, limit, one}));
    TFG_ASSIGN_OR_RETURN(g.input_grads[k], g.Op("gather", {dy, indices}, {{"axis", axis}}));
    offset = limit;
  }
  return Status::OK();
}

// Input k's gradient is its piece of dy along the axis: one split when the
// sizes of all inputs but one are known at build time, else the run-time
// form above.
Status ConcatGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const int64_t axis = *g.node->attr<int64_t>("axis");
  const int n = static_cast<int>(g.node->inputs().size());
  const PartialShape& out = g.output(0).shape();
  if (!out.known_rank()) return RuntimeConcatGrad(g, dy, axis);
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("concat", axis, out.rank()));
  std::vector<int64_t> sizes;
  int unknown = 0;
  for (int k = 0; k < n; ++k) {
    const PartialShape& s = g.input(k).shape();
    const int64_t d = s.known_rank() ? s.dim(ax) : PartialShape::kUnknown;
    unknown += d < 0;
    sizes.push_back(d < 0 ? -1 : d);
  }
  if (unknown > 1) return RuntimeConcatGrad(g, dy, ax);
  TFG_ASSIGN_OR_RETURN(Node * split, g.OpNode("split", {dy}, {{"num", int64_t{n}}, {"axis", int64_t{ax}}, {"sizes", sizes}}));
  for (int k = 0; k < n; ++k) g.input_grads[k] = split->output(k);
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("concat")
                    .InputList("values", "T")
                    .Attr("axis", AttrType::kInt, std::nullopt, "the axis to join along; negative counts from the end")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(ConcatShapeFn)
                    .SetGradFn(ConcatGrad)
                    .Doc("Joins tensors of the same rank and dtype along `axis`; the other dimensions must match."));
TFG_REGISTER_KERNEL(KernelDef("concat", DeviceType::kCpu).Create<ConcatKernel>());

}  // namespace tfg
