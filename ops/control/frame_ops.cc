// The frame ops of while_loop (white paper §4.4): enter passes a tensor
// into a loop's frame (a loop variable into the first iteration; an
// is_constant loop invariant into every iteration, without running anything
// per iteration), next_iteration into the next iteration, exit out of the
// frame; loop_cond marks the predicate. Their kernels only forward: frames
// and iterations are the executor's business (interp/runtime/executor_frames.cc).
#include "ops/core/control_flow.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class ForwardKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kEnterOp)
                    .Input("data", "T")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .Attr(while_loop::kFrameNameAttr, AttrType::kString, std::nullopt, "the loop's frame, unique in the graph")
                    .Attr(while_loop::kIsConstantAttr, AttrType::kBool, false, "a loop invariant, seen by every iteration")
                    .Attr(while_loop::kParallelIterationsAttr, AttrType::kInt, int64_t{10},
                          "how many iterations may run at once")
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("differentiated with its whole while_loop, not on its own")
                    .Doc("Passes a tensor into a while_loop's frame. Built by while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kEnterOp, DeviceType::kCpu).Create<ForwardKernel>());

TFG_REGISTER_OP(OpDefBuilder(kExitOp)
                    .Input("data", "T")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("differentiated with its whole while_loop, not on its own")
                    .Doc("Passes a loop variable's final value out of a while_loop's frame. Built by while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kExitOp, DeviceType::kCpu).Create<ForwardKernel>());

TFG_REGISTER_OP(OpDefBuilder(kNextIterationOp)
                    .Input("data", "T")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("differentiated with its whole while_loop, not on its own")
                    .Doc("Passes a loop variable to the next iteration of a while_loop. Built by while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kNextIterationOp, DeviceType::kCpu).Create<ForwardKernel>());

TFG_REGISTER_OP(OpDefBuilder(kLoopCondOp)
                    .Input("pred", "bool")
                    .Output("output", "bool")
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("a loop's predicate")
                    .Doc("Marks a while_loop's predicate: its value decides whether the loop runs another "
                         "iteration. Built by while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kLoopCondOp, DeviceType::kCpu).Create<ForwardKernel>());

}  // namespace tfg
