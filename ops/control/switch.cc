// switch(data, pred): forwards data to output_true when pred holds, else to
// output_false; the other output is dead, and the executor skips every node
// that depends on a dead tensor (white paper §4.4). cond builds one switch
// per tensor a branch reads from outside.
#include "ops/autodiff/gradients.h"
#include "ops/core/control_flow.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class SwitchKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& pred = ctx.input(1);
    if (pred.num_elements() != 1) {
      return InvalidArgument("the predicate must be a single bool, got {}", pred.DebugString());
    }
    ctx.set_output(pred.data<bool>()[0] ? 1 : 0, ctx.input(0));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

Status SwitchShape(ShapeContext& c) {
  c.set_output(0, c.input(0));
  c.set_output(1, c.input(0));
  return Status::OK();
}

// The gradient of a switch merges the gradients of its two outputs: only
// the branch that ran produced a live one. A branch that passes no
// gradient back gets zeros switched by the same predicate, live exactly
// when that branch ran. (Not zeros shaped like the switch's output: inside
// a while_loop that would be a value saved from the forward pass, dead in
// the iterations that took the other branch.)
Status SwitchGrad(GradContext& g) {
  Output grads[2] = {g.output_grads[0], g.output_grads[1]};
  if (!grads[0].node || !grads[1].node) {
    TFG_ASSIGN_OR_RETURN(Output zeros, g.Op("zeros_like", {g.input(0)}));
    TFG_ASSIGN_OR_RETURN(Node * sw, g.OpNode(kSwitchOp, {zeros, g.input(kSwitchPredInput)}));
    for (int i = 0; i < 2; ++i) {
      if (!grads[i].node) grads[i] = sw->output(i);
    }
  }
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(kMergeOp, {grads[0], grads[1]}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kSwitchOp)
                    .Input("data", "T")
                    .Input("pred", "bool")
                    .Output("output_false", "T")
                    .Output("output_true", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(SwitchShape)
                    .SetGradFn(SwitchGrad)
                    .Doc("Forwards data to output_true when pred holds, else to output_false; the other output is "
                         "dead. Built by cond and while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kSwitchOp, DeviceType::kCpu).Create<SwitchKernel>());

}  // namespace tfg
