// placeholder(dtype, shape): a value the caller feeds to each run(). The
// kernel runs only when nothing was fed, which is always an error.
// placeholder_with_default(input, shape): the same, but a run that feeds
// nothing gets `input` (TensorFlow's PlaceholderWithDefault).
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

Status PlaceholderShapeFn(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  return Status::OK();
}

class PlaceholderKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const PartialShape* shape = c.attr<PartialShape>("shape");
    message_ = fmt::format("placeholder '{}' must be fed (declared {})", c.node_name,
                           state::TypeAndShape(c.output_types[0], shape ? *shape : PartialShape::Unknown()));
    return Status::OK();
  }
  Status Compute(OpKernelContext&) override { return Status(Code::kInvalidArgument, message_); }
  bool IsExpensive() const override { return false; }

 private:
  std::string message_;
};

// The declared shape, which the default must fit: feeds may then have any
// shape it allows.
Status WithDefaultShapeFn(ShapeContext& c) {
  const PartialShape* shape = c.attr<PartialShape>("shape");
  const PartialShape declared = shape ? *shape : PartialShape::Unknown();
  if (!declared.CompatibleWith(c.input(0))) {
    return InvalidArgument("placeholder_with_default: the default has shape {}, which does not fit shape {}",
                           c.input(0).ToString(), declared.ToString());
  }
  c.set_output(0, declared);
  return Status::OK();
}

class WithDefaultKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

// Unfed, it is its default: the gradient passes through, as identity's.
Status WithDefaultGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.OutputGrad(0));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("placeholder")
                    .TypeAttr("dtype", AllTypes())
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(),
                          "static shape; `?` for a dimension known only at run time")
                    .Output("output", "dtype")
                    .Stateful()
                    .SetShapeFn(PlaceholderShapeFn)
                    .NoGradient("placeholder: a fed input")
                    .Doc("A value fed to each run through `feed={x: value}`; the fed value's dtype must equal "
                         "`dtype` and its shape must match `shape`."));
TFG_REGISTER_KERNEL(KernelDef("placeholder", DeviceType::kCpu).Create<PlaceholderKernel>());

// Stateful, so a default built from host values stays a node (feedable)
// instead of running at once, and is never folded into a constant.
TFG_REGISTER_OP(OpDefBuilder("placeholder_with_default")
                    .Input("input", "dtype")
                    .Output("output", "dtype")
                    .TypeAttr("dtype", AllTypes())
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(),
                          "the shapes a feed may have (`?` for any size); the default must fit it")
                    .Stateful()
                    .SetShapeFn(WithDefaultShapeFn)
                    .SetGradFn(WithDefaultGrad)
                    .Doc("A placeholder that need not be fed: a run that feeds it gets the value fed, one that "
                         "does not gets `input` (e.g. `training = placeholder_with_default(false, [])`)."));
TFG_REGISTER_KERNEL(KernelDef("placeholder_with_default", DeviceType::kCpu).Create<WithDefaultKernel>());

}  // namespace tfg
