#include "ops/math/cwise_common.h"

#include <memory>

namespace tfg {
namespace {

class CwiseKernel final : public OpKernel {
 public:
  CwiseKernel(CwiseFn fn, int64_t cost) : fn_(fn), cost_(cost) {}
  Status Compute(OpKernelContext& ctx) override { return fn_(ctx, cost_); }

 private:
  CwiseFn fn_;
  int64_t cost_;
};

}  // namespace

std::unique_ptr<OpKernel> MakeCwiseKernel(CwiseFn fn, int64_t cost) {
  return std::make_unique<CwiseKernel>(fn, cost);
}

KernelFactory CwiseFactory(CwiseFns fns, int64_t cost, int dispatch_input) {
  return [fns, cost, dispatch_input](const KernelConstruction& c) -> Result<std::unique_ptr<OpKernel>> {
    const std::string& op = c.op ? c.op->name : c.node_name;
    if (dispatch_input >= static_cast<int>(c.input_types.size())) {
      return Internal("{}: kernel expects at least {} inputs", op, dispatch_input + 1);
    }
    const DType dtype = c.input_types[dispatch_input];
    CwiseFn fn = static_cast<size_t>(dtype) < fns.by_dtype.size() ? fns[dtype] : nullptr;
    if (fn == nullptr) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(dtype));
    return MakeCwiseKernel(fn, cost);
  };
}

void RegisterCwiseKernel(const std::string& op, const CwiseFns& fns, int64_t cost, int dispatch_input) {
  KernelRegistrar kernel(KernelDef(op, DeviceType::kCpu).Factory(CwiseFactory(fns, cost, dispatch_input)));
  for (DType d : kAllDTypes) {
    if (ScalarFn f = fns.scalar[static_cast<size_t>(d)]) RegisterScalarFn(op, d, f);
  }
}

Status BroadcastShapeFn(ShapeContext& c) {
  PartialShape out = c.input(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto r = BroadcastShapes(out, c.input(i));
    if (!r.ok()) {
      Status s = r.status();
      return s.Prepend(c.op().name + ": ");
    }
    out = *r;
  }
  c.set_output(0, out);
  return Status::OK();
}

Status SameShapeFn(ShapeContext& c) {
  c.set_output(0, c.input(0));
  return Status::OK();
}

Result<TensorShape> BroadcastForOp(const OpKernelContext& ctx, const TensorShape& a, const TensorShape& b) {
  if (a == b) return a;
  auto r = BroadcastShapes(a, b);
  if (!r.ok()) {
    Status s = r.status();
    return s.Prepend((ctx.info().op ? ctx.info().op->name : ctx.info().node_name) + ": ");
  }
  return r;
}

}  // namespace tfg
