// accumulator_take_gradient(handle, num_required): the mean of the first
// num_required gradients for the accumulator's global step, once that
// many have arrived. Asynchronous: the wait holds no thread.
#include "ops/core/cancellation.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/train/accumulator.h"

namespace tfg {
namespace {

class AccumulatorTakeGradientKernel : public OpKernel {
 public:
  bool IsAsync() const override { return true; }
  Status Compute(OpKernelContext&) override {
    return Internal("accumulator_take_gradient: asynchronous kernel run synchronously");
  }
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override {
    auto acc = LookupAccumulator(ctx.resources(), ctx.input(0));
    if (!acc.ok()) return done(acc.status());
    const Tensor& n = ctx.input(1);
    if (n.num_elements() != 1) return done(InvalidArgument("num_required must be a scalar, got {}", n.DebugString()));
    if (ctx.output_type(0) != (*acc)->dtype()) {
      return done(InvalidArgument("accumulator '{}' holds {} gradients but this take gives {}", (*acc)->name(),
                                  DTypeName((*acc)->dtype()), DTypeName(ctx.output_type(0))));
    }
    (*acc)->TakeGradient(n.scalar<int32_t>(), ctx.step().cancellation,
                         [&ctx, done = std::move(done)](Result<Tensor> mean) {
                           if (!mean.ok()) return done(mean.status());
                           ctx.set_output(0, std::move(*mean));
                           done(Status::OK());
                         });
  }
  std::string BlockedOn(const OpKernelContext& ctx) const override {
    auto acc = LookupAccumulator(ctx.resources(), ctx.input(0));
    return acc.ok() ? (*acc)->WaitDescription() : "";
  }
};

Status AccumulatorTakeGradientShapeFn(ShapeContext& c) {
  if (c.input(1).known_rank() && c.input(1).rank() != 0) {
    return InvalidArgument("num_required must be a scalar, got shape {}", c.input(1).ToString());
  }
  if (const Tensor* n = c.input_value(1); n != nullptr && n->num_elements() == 1 && n->scalar<int32_t>() < 1) {
    return InvalidArgument("num_required must be at least 1, got {}", n->scalar<int32_t>());
  }
  const auto* shape = c.attr<PartialShape>("element_shape");
  c.set_output(0, shape ? *shape : PartialShape::Unknown());
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("accumulator_take_gradient")
                    .Input("handle", "string")
                    .Input("num_required", "i32")
                    .TypeAttr("dtype", {DType::kF32, DType::kF64})
                    .Attr("element_shape", AttrType::kShape, PartialShape::Unknown(),
                          "the gradients' shape, for shape inference")
                    .Output("average", "dtype")
                    .Stateful()
                    .SetShapeFn(AccumulatorTakeGradientShapeFn)
                    .NoGradient("its value is the mean of gradients handed over in other runs")
                    .Doc("Waits until the accumulator holds num_required gradients for its global step, then "
                         "outputs the mean of the first num_required (in arrival order), drops the rest and "
                         "advances the global step by one, so gradients still to come from the old step are "
                         "dropped. The wait holds no thread; waiting takes are served in order."));
TFG_REGISTER_KERNEL(KernelDef("accumulator_take_gradient", DeviceType::kCpu).Create<AccumulatorTakeGradientKernel>());

}  // namespace tfg
