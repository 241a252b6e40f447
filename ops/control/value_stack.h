// The per-step stores behind while_loop gradients (OSDI 2016 §4.4): the
// forward loop saves a value every iteration (value_stack_push, keyed by the
// iteration's index) and the backward loop takes it back (value_stack_pop) when
// it differentiates that iteration. Keying by index, not push order, keeps
// the pairing right when parallel_iterations lets iterations finish out of
// order.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ops/framework/kernel.h"
#include "ops/framework/resource_mgr.h"

namespace tfg {

class ValueStack : public Resource {
 public:
  std::string DebugString() const override;
  Status Push(int64_t index, Tensor value);
  Result<Tensor> Pop(int64_t index);

 private:
  mutable std::mutex mu_;
  std::map<int64_t, Tensor> values_;
};

namespace stack {

Result<std::shared_ptr<ValueStack>> Lookup(const OpKernelContext& ctx, const Tensor& handle);

}  // namespace stack
}  // namespace tfg
