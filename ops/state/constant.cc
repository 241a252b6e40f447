// constant(value, dtype): a tensor fixed when the graph is built. The
// interpreter converts host values to `dtype` before building the node, so
// the attr tensor already has the declared dtype.
#include "devices/device_copy.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status ConstantShapeFn(ShapeContext& c) {
  const Tensor* value = c.attr<Tensor>("value");
  const DType* dtype = c.attr<DType>("dtype");
  if (value == nullptr || !value->IsInitialized()) return InvalidArgument("constant: 'value' must be a tensor");
  if (dtype != nullptr && *dtype != value->dtype()) {
    return InvalidArgument("constant: value has dtype {} but dtype={} was given", DTypeName(value->dtype()),
                           DTypeName(*dtype));
  }
  c.set_output(0, PartialShape(value->shape()));
  return Status::OK();
}

// Outputs the attr tensor itself: its buffer is shared, never copied, and
// never written (consumers see a reference count above one). On a device
// with memory of its own (a GPU) the value is copied there once, when the
// plan creates the kernel, and that copy is shared the same way.
class ConstantKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const Tensor* v = c.attr<Tensor>("value");
    if (v == nullptr || !v->IsInitialized()) return InvalidArgument("constant: 'value' must be a tensor");
    if (v->dtype() != c.output_types[0]) {
      return InvalidArgument("constant: value has dtype {} but dtype={} was given", DTypeName(v->dtype()),
                             DTypeName(c.output_types[0]));
    }
    value_ = *v;
    if (c.device == nullptr || UsesHostMemory(*c.device)) return Status::OK();
    TFG_ASSIGN_OR_RETURN(std::vector<Tensor> here, TensorsFromHost(c.device, {value_}));
    value_ = std::move(here[0]);
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, value_);
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("constant")
                    .Attr("value", AttrType::kTensor, std::nullopt, "the tensor")
                    .TypeAttr("dtype", AllTypes())
                    .Output("output", "dtype")
                    .SetShapeFn(ConstantShapeFn)
                    .NoGradient("constant")
                    .Doc("A tensor fixed when the graph is built. `dtype` converts the value (the interpreter "
                         "does the conversion; the node's value always has dtype `dtype`)."));
TFG_REGISTER_KERNEL(KernelDef("constant", DeviceType::kCpu).Create<ConstantKernel>());
// Strings cannot live on a GPU.
TFG_REGISTER_KERNEL(KernelDef("constant", DeviceType::kGpu).TypeConstraint(RealTypes(), "dtype").Create<ConstantKernel>());

}  // namespace tfg
