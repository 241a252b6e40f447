// placeholder(dtype, shape): a value the caller feeds to each run(). The
// kernel runs only when nothing was fed, which is always an error.
#include "ops/framework/op_registry.h"
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

}  // namespace tfg
