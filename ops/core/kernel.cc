#include "ops/core/kernel.h"

#include "ops/core/device.h"
#include "ops/core/op_registry.h"

namespace tfg {

Allocator* OpKernelContext::allocator() const {
  return info_->device ? info_->device->allocator() : HostAllocator();
}

Result<Tensor*> OpKernelContext::allocate_output(int i, TensorShape shape) {
  if (i < 0 || i >= num_outputs_) return Internal("{}: output index {} out of range", info_->op->name, i);
  TFG_ASSIGN_OR_RETURN(outputs_[i], Tensor::Allocate(allocator(), output_type(i), std::move(shape)));
  return &outputs_[i];
}

void OpKernelContext::ParallelFor(int64_t total, int64_t cost_per_unit,
                                  const std::function<void(int64_t, int64_t)>& fn) const {
  if (info_->device) {
    info_->device->ParallelFor(total, cost_per_unit, fn);
  } else if (total > 0) {
    fn(0, total);
  }
}

namespace shape_fns {

Status Unchanged(ShapeContext& c) {
  c.set_output(0, c.input(0));
  return Status::OK();
}

Status Broadcast(ShapeContext& c) {
  auto s = BroadcastShapes(c.input(0), c.input(1));
  if (!s.ok()) return InvalidArgument("{}: {}", c.op().name, s.status().message());
  c.set_output(0, *s);
  return Status::OK();
}

Status ScalarOutput(ShapeContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

Status NoOutputs(ShapeContext&) { return Status::OK(); }

}  // namespace shape_fns
}  // namespace tfg
