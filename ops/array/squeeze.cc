// squeeze(x, axis=none): removes dimensions of size 1 — all of them, or
// those listed in `axis` (each must have size 1). Shares x's buffer.
#include "ops/array/array_grad.h"
#include "ops/array/array_util.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Output dims. Unknown dims (-1) listed in `axis` are assumed to be 1 (the
// kernel checks); with no `axis`, an unknown dim makes the rank unknown.
Result<PartialShape> Squeeze(const PartialShape& in, const std::vector<int64_t>* axis) {
  if (!in.known_rank()) return PartialShape::Unknown();
  const int rank = in.rank();
  std::vector<bool> drop(rank, false);
  if (axis != nullptr) {
    for (int64_t a : *axis) {
      TFG_ASSIGN_OR_RETURN(int ax, array::NormalizeAxis("squeeze", a, rank));
      if (in.dim(ax) >= 0 && in.dim(ax) != 1) {
        return InvalidArgument("squeeze: cannot squeeze dimension {} of shape {}: its size is {}, not 1", ax,
                               in.ToString(), in.dim(ax));
      }
      drop[ax] = true;
    }
  } else {
    for (int d = 0; d < rank; ++d) {
      if (in.dim(d) < 0) return PartialShape::Unknown();
      drop[d] = in.dim(d) == 1;
    }
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!drop[d]) dims.push_back(in.dim(d));
  }
  return PartialShape(std::move(dims));
}

Status SqueezeShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape out, Squeeze(c.input(0), c.attr<std::vector<int64_t>>("axis")));
  c.set_output(0, std::move(out));
  return Status::OK();
}

class SqueezeKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const auto* a = c.attr<std::vector<int64_t>>("axis")) {
      axis_ = *a;
      has_axis_ = true;
    }
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(PartialShape out, Squeeze(PartialShape(x.shape()), has_axis_ ? &axis_ : nullptr));
    ctx.set_output(0, x.Reshaped(out.ToTensorShape()));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> axis_;
  bool has_axis_ = false;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("squeeze")
                    .Input("x", "T")
                    .Attr("axis", AttrType::kIntList, AttrValue(std::monostate{}),
                          "dimensions to remove (each of size 1); none: every size-1 dimension")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetGradFn(ReshapeToInputGrad)
                    .SetShapeFn(SqueezeShapeFn)
                    .Doc("Removes dimensions of size 1: those listed in `axis`, or all of them."));
TFG_REGISTER_KERNEL(KernelDef("squeeze", DeviceType::kCpu).Create<SqueezeKernel>());

}  // namespace tfg
