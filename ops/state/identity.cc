// identity(x): forwards x (same buffer). Used for reads that must happen
// after control dependencies, and by gradients. stop_gradient(x): the same
// forward, a wall backwards (TensorFlow's StopGradient).
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class IdentityKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

// d identity(x) / dx = 1: the incoming gradient passes through.
Status IdentityGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.OutputGrad(0));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("identity")
                    .Input("x", "T")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .SetGradFn(IdentityGrad)
                    .Doc("Returns x unchanged (no copy)."));
TFG_REGISTER_KERNEL(KernelDef("identity", DeviceType::kCpu).Create<IdentityKernel>());

TFG_REGISTER_OP(OpDefBuilder("stop_gradient")
                    .Input("x", "T")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("stop_gradient passes none, by design")
                    .Doc("Returns x unchanged, but no gradient flows back through it: grad() treats it as a "
                         "constant (targets, fixed statistics, EM-style updates)."));
TFG_REGISTER_KERNEL(KernelDef("stop_gradient", DeviceType::kCpu).Create<IdentityKernel>());

}  // namespace tfg
