// conditional_accumulator(dtype, shape, shared_name, container): makes the
// accumulator (ops/train/accumulator.h) on its first run, or finds the one
// of the same shared name, and outputs its handle.
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/train/accumulator.h"

namespace tfg {
namespace {

class MakeAccumulatorKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const auto* dtype = c.attr<DType>("dtype");
    const auto* shape = c.attr<PartialShape>("shape");
    if (!dtype || !shape) return Internal("conditional_accumulator: missing attributes");
    dtype_ = *dtype;
    shape_ = *shape;
    if (const auto* container = c.attr<std::string>("container")) container_ = *container;
    const auto* shared = c.attr<std::string>("shared_name");
    name_ = (shared && !shared->empty()) ? *shared : c.node_name;
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    if (ctx.resources() == nullptr) return Internal("conditional_accumulator needs a resource manager");
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<ConditionalAccumulator> acc,
                         ctx.resources()->LookupOrCreate<ConditionalAccumulator>(container_, name_, [&] {
                           return std::make_shared<ConditionalAccumulator>(name_, dtype_, shape_);
                         }));
    TFG_RETURN_IF_ERROR(acc->CheckCompatible(dtype_, shape_));
    ctx.set_output(0, Tensor::Scalar<std::string>(AccumulatorHandle(container_, name_)));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }

 private:
  DType dtype_ = DType::kF32;
  PartialShape shape_ = PartialShape::Unknown();
  std::string container_;
  std::string name_;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("conditional_accumulator")
                    .TypeAttr("dtype", {DType::kF32, DType::kF64})
                    .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "shape of the gradients it takes")
                    .Attr("shared_name", AttrType::kString, std::string(),
                          "name the accumulator is kept under; empty: the node's name")
                    .Attr("container", AttrType::kString, std::string(), "reset(container) drops it")
                    .Output("handle", "string")
                    .Stateful()
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("an accumulator handle is not differentiable")
                    .Doc("An accumulator of gradients for synchronous training with backup workers (TensorFlow's "
                         "ConditionalAccumulator): accumulator_apply_gradient adds a gradient unless it is older "
                         "than the accumulator's global step; accumulator_take_gradient(n) waits for n of them, "
                         "returns the mean of the first n and advances the global step. Outputs its handle."));
TFG_REGISTER_KERNEL(KernelDef("conditional_accumulator", DeviceType::kCpu).Create<MakeAccumulatorKernel>());

}  // namespace tfg
