// reshape(x, shape): same elements, new shape; one entry of `shape` may be
// -1 and is inferred from the element count. Shares x's buffer.
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// The output shape for input shape `in` (maybe partial). Errors name both
// shapes when the element counts cannot match.
Result<PartialShape> ReshapeOutput(const PartialShape& in, const std::vector<int64_t>& shape) {
  int unknown_at = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < -1) {
      return InvalidArgument("reshape: shape {} has invalid dimension {} (dimensions are >= 0, or -1 for inferred)",
                             array::IntListToString(shape), shape[i]);
    }
    if (shape[i] == -1) {
      if (unknown_at >= 0) return InvalidArgument("reshape: shape {} has more than one -1", array::IntListToString(shape));
      unknown_at = static_cast<int>(i);
    } else {
      auto product = checked::Mul(known_product, shape[i]);
      if (!product) {
        return InvalidArgument("reshape: shape {} is too large: its element count {} * {} overflows int64",
                               array::IntListToString(shape), known_product, shape[i]);
      }
      known_product = *product;
    }
  }
  std::vector<int64_t> out = shape;
  const int64_t n = in.num_elements();  // -1 unless fully defined
  if (n < 0) return PartialShape(out);
  if (unknown_at < 0) {
    if (known_product != n) {
      return InvalidArgument("reshape: cannot reshape a tensor of shape {} ({} elements) into shape {} ({} elements)",
                             in.ToString(), n, array::IntListToString(shape), known_product);
    }
    return PartialShape(out);
  }
  if (known_product == 0 || n % known_product != 0) {
    return InvalidArgument(
        "reshape: cannot reshape a tensor of shape {} ({} elements) into shape {}: the other dimensions' product {} "
        "does not divide {}",
        in.ToString(), n, array::IntListToString(shape), known_product, n);
  }
  out[unknown_at] = n / known_product;
  return PartialShape(out);
}

Status ReshapeShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto shape, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "reshape", "shape"));
  TFG_ASSIGN_OR_RETURN(PartialShape out, ReshapeOutput(c.input(0), shape));
  c.set_output(0, std::move(out));
  return Status::OK();
}

class ReshapeKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(shape_, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "reshape", "shape"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(PartialShape out, ReshapeOutput(PartialShape(x.shape()), shape_));
    ctx.set_output(0, x.Reshaped(out.ToTensorShape()));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  std::vector<int64_t> shape_;
};

// reshape_like(x, like): x in like's run-time shape — what the gradients of
// reshape, expand_dims, squeeze and stack need when shapes are partly
// unknown at build time.
Status ReshapeLikeShapeFn(ShapeContext& c) {
  const int64_t n = c.input(0).num_elements(), m = c.input(1).num_elements();
  if (n >= 0 && m >= 0 && n != m) {
    return InvalidArgument("reshape_like: cannot reshape {} ({} elements) like {} ({} elements)",
                           c.input(0).ToString(), n, c.input(1).ToString(), m);
  }
  c.set_output(0, c.input(1));
  return Status::OK();
}

class ReshapeLikeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const TensorShape& like = ctx.input(1).shape();
    if (x.num_elements() != like.num_elements()) {
      return InvalidArgument("reshape_like: cannot reshape {} ({} elements) like {} ({} elements)",
                             x.shape().ToString(), x.num_elements(), like.ToString(), like.num_elements());
    }
    ctx.set_output(0, x.Reshaped(like));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

// dx = dy in x's shape; for reshape_like the `like` input gets none.
Status ReshapeGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("reshape_like", {dy, g.input(0)}));
  return Status::OK();
}

}  // namespace

Status ReshapeToInputGrad(GradContext& g) { return ReshapeGrad(g); }

TFG_REGISTER_OP(OpDefBuilder("reshape")
                    .Input("x", "T")
                    .Attr("shape", AttrType::kIntList, std::nullopt, "the new shape; one entry may be -1")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(ReshapeShapeFn)
                    .SetGradFn(ReshapeGrad)
                    .Doc("Returns x's elements (row-major order) in a new shape. One dimension of `shape` may be -1: "
                         "it is inferred so that the element count stays the same."));
TFG_REGISTER_KERNEL(KernelDef("reshape", DeviceType::kCpu).Create<ReshapeKernel>());

TFG_REGISTER_OP(OpDefBuilder("reshape_like")
                    .Input("x", "T")
                    .Input("like", "Tlike")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("Tlike", AllTypes())
                    .SetShapeFn(ReshapeLikeShapeFn)
                    .SetGradFn(ReshapeGrad)
                    .Doc("x's elements in the shape of `like` (only like's shape is used); the element counts "
                         "must agree."));
TFG_REGISTER_KERNEL(KernelDef("reshape_like", DeviceType::kCpu).Create<ReshapeLikeKernel>());

}  // namespace tfg
