// split(x, num, axis=0, sizes=[]): cuts x along `axis` into `num` tensors.
// Without `sizes` the pieces are equal (the axis must divide by num). With
// `sizes` (one entry may be -1: the rest of the axis) num must equal
// len(sizes); the interpreter sets num from sizes when a script omits it,
// and a list given for num is the sizes (split(x, [1, 2]), as TensorFlow's
// num_or_size_splits).
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

struct SplitAttrs {
  int64_t num = 0;
  int64_t axis = 0;
  std::vector<int64_t> sizes;
};

Result<SplitAttrs> ReadSplitAttrs(const AttrMap& attrs) {
  SplitAttrs a;
  TFG_ASSIGN_OR_RETURN(a.num, array::RequiredAttr<int64_t>(attrs, "split", "num"));
  TFG_ASSIGN_OR_RETURN(a.axis, array::RequiredAttr<int64_t>(attrs, "split", "axis"));
  if (const auto* s = FindAttr<std::vector<int64_t>>(attrs, "sizes")) a.sizes = *s;
  if (!a.sizes.empty() && static_cast<int64_t>(a.sizes.size()) != a.num) {
    return InvalidArgument("split: num is {} but sizes {} has {} entries; they must agree", a.num,
                           array::IntListToString(a.sizes), a.sizes.size());
  }
  if (a.num < 1) return InvalidArgument("split: num must be at least 1, got {}", a.num);
  return a;
}

// The size of each piece along the axis of length `dim` (-1: unknown);
// pieces of unknown size are -1.
Result<std::vector<int64_t>> PieceSizes(const SplitAttrs& a, int64_t dim) {
  if (a.sizes.empty()) {
    if (dim >= 0 && dim % a.num != 0) {
      return InvalidArgument("split: dimension {} of size {} cannot be split into {} equal pieces", a.axis, dim, a.num);
    }
    return std::vector<int64_t>(a.num, dim < 0 ? -1 : dim / a.num);
  }
  std::vector<int64_t> out = a.sizes;
  int inferred = -1;
  int64_t sum = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < -1 || (out[i] == -1 && inferred >= 0)) {
      return InvalidArgument("split: sizes {} must be >= 0 with at most one -1", array::IntListToString(a.sizes));
    }
    if (out[i] == -1) {
      inferred = static_cast<int>(i);
    } else {
      TFG_ASSIGN_OR_RETURN(sum, checked::AddSize("split", "the sum of sizes", sum, out[i]));
    }
  }
  if (dim < 0) return out;
  if ((inferred < 0 && sum != dim) || sum > dim) {
    return InvalidArgument("split: sizes {} {} but dimension {} has size {}", array::IntListToString(a.sizes),
                           inferred < 0 ? fmt::format("sum to {}", sum) : fmt::format("exceed it ({})", sum), a.axis,
                           dim);
  }
  if (inferred >= 0) out[inferred] = dim - sum;
  return out;
}

Status SplitShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(SplitAttrs a, ReadSplitAttrs(c.attrs()));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape::Unknown());
    return Status::OK();
  }
  if (in.rank() == 0) return InvalidArgument("split: cannot split a scalar");
  TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("split", a.axis, in.rank()));
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> pieces, PieceSizes(a, in.dim(ax)));
  for (int i = 0; i < c.num_outputs() && i < static_cast<int>(pieces.size()); ++i) {
    std::vector<int64_t> dims = in.dims();
    dims[ax] = pieces[i];
    c.set_output(i, PartialShape(std::move(dims)));
  }
  return Status::OK();
}

class SplitKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, ReadSplitAttrs(*c.attrs));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) return InvalidArgument("split: cannot split a scalar");
    TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("split", attrs_.axis, x.rank()));
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> pieces, PieceSizes(attrs_, x.dim(ax)));
    if (static_cast<int>(pieces.size()) != ctx.num_outputs()) {
      return Internal("split: {} pieces for {} outputs", pieces.size(), ctx.num_outputs());
    }
    std::vector<Tensor*> outs;
    for (size_t i = 0; i < pieces.size(); ++i) {
      std::vector<int64_t> dims = x.shape().dims();
      dims[ax] = pieces[i];
      TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(static_cast<int>(i), TensorShape(dims)));
      outs.push_back(out);
    }
    array::SplitRows(ctx, x, array::DimProduct(x.shape().dims(), 0, ax), outs);
    return Status::OK();
  }

 private:
  SplitAttrs attrs_;
};

// dx = the pieces' gradients (zeros where none reached) joined again.
Status SplitGrad(GradContext& g) {
  std::vector<Output> parts;
  for (int i = 0; i < g.node->num_outputs(); ++i) {
    TFG_ASSIGN_OR_RETURN(Output part, g.OutputGrad(i));
    parts.push_back(part);
  }
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("concat", std::move(parts), {{"axis", *g.node->attr<int64_t>("axis")}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("split")
                    .Input("x", "T")
                    .Attr("num", AttrType::kInt, int64_t{0}, "number of pieces; must equal len(sizes) when given")
                    .Attr("axis", AttrType::kInt, int64_t{0}, "the axis to cut")
                    .Attr("sizes", AttrType::kIntList, std::vector<int64_t>{},
                          "piece sizes along axis (one may be -1); empty: num equal pieces")
                    .OutputList("outputs", "T", "num")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(SplitShapeFn)
                    .SetGradFn(SplitGrad)
                    .Doc("Cuts x along `axis` into `num` pieces: equal ones, or of the given `sizes` (one size may "
                         "be -1 for the rest). When sizes are given, num equals len(sizes) and may be left out; a list "
                         "in num's place is the sizes, as TensorFlow's num_or_size_splits: split(x, [1, 2], axis=1)."));
TFG_REGISTER_KERNEL(KernelDef("split", DeviceType::kCpu).Create<SplitKernel>());

}  // namespace tfg
