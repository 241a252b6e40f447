// value_stack() makes a store of per-iteration values for this step and
// outputs its handle. It lives in a step container: the executor frees it,
// with whatever the backward loop did not take, when the step ends.
#include "ops/control/value_stack.h"

#include <fmt/ranges.h>

#include "ops/core/op_registry.h"

namespace tfg {

std::string ValueStack::DebugString() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fmt::format("value stack ({} held)", values_.size());
}

Status ValueStack::Push(const StackKey& key, Tensor value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!values_.emplace(key, std::move(value)).second) {
    return Internal("a value was already saved for iteration {}", fmt::join(key, "/"));
  }
  return Status::OK();
}

Result<Tensor> ValueStack::Pop(const StackKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(key);
  if (it == values_.end()) return Internal("no value was saved for iteration {}", fmt::join(key, "/"));
  Tensor t = std::move(it->second);
  values_.erase(it);
  return t;
}

namespace stack {

constexpr const char* kResourceName = "stack";

Result<std::shared_ptr<ValueStack>> Lookup(const OpKernelContext& ctx, const Tensor& handle) {
  if (handle.shape().rank() != 0) {
    return InvalidArgument("a value stack handle is a string scalar, got shape {}", handle.shape().ToString());
  }
  const std::string& container = handle.scalar<std::string>();
  auto s = ctx.resources()->Lookup<ValueStack>(container, kResourceName);
  if (!s) return FailedPrecondition("the value stack '{}' does not exist (it belongs to another step)", container);
  return s;
}

Result<StackKey> KeyOf(const OpKernelContext& ctx, int first, int count) {
  StackKey key;
  for (int i = first; i < first + count; ++i) {
    const Tensor& index = ctx.input(i);
    if (index.shape().rank() != 0) {
      return InvalidArgument("a value stack index is an i64 scalar, got shape {}", index.shape().ToString());
    }
    key.push_back(index.scalar<int64_t>());
  }
  return key;
}

}  // namespace stack

namespace {

class StackKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    // Each step makes its own stack, in a step container (dropped when the
    // step ends).
    const std::string container = ctx.resources()->StepContainer(ctx.step().step_id, ctx.info().node_name);
    std::function<std::shared_ptr<ValueStack>()> make = [] { return std::make_shared<ValueStack>(); };
    TFG_RETURN_IF_ERROR(ctx.resources()->LookupOrCreate<ValueStack>(container, stack::kResourceName, make).status());
    ctx.set_output(0, Tensor::Scalar<std::string>(container));
    return Status::OK();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("value_stack")
                    .Output("handle", "string")
                    .Stateful()
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("a stack handle is not differentiable")
                    .Doc("Makes a store of per-iteration values for this step and outputs its handle. Built by "
                         "grad() through a while_loop."));
TFG_REGISTER_KERNEL(KernelDef("value_stack", DeviceType::kCpu).Create<StackKernel>());

}  // namespace tfg
