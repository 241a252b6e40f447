// The per-step stores behind while_loop gradients (OSDI 2016 §4.4): the
// forward loop saves a value every iteration (value_stack_push, keyed by the
// iteration's index) and the backward loop takes it back (value_stack_pop) when
// it differentiates that iteration. Keying by index, not push order, keeps
// the pairing right when parallel_iterations lets iterations finish out of
// order. In a loop inside other loops the key is the iteration of each.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/resource_mgr.h"

namespace tfg {

// The iteration of the outermost loop first, of the loop saving last.
using StackKey = std::vector<int64_t>;

class ValueStack : public Resource {
 public:
  std::string DebugString() const override;
  Status Push(const StackKey& key, Tensor value);
  Result<Tensor> Pop(const StackKey& key);

 private:
  mutable std::mutex mu_;
  std::map<StackKey, Tensor> values_;
};

namespace stack {

Result<std::shared_ptr<ValueStack>> Lookup(const OpKernelContext& ctx, const Tensor& handle);
// Inputs [first, first + count) of the kernel, each an i64 scalar (else
// InvalidArgument: a script can call these ops with any tensors).
Result<StackKey> KeyOf(const OpKernelContext& ctx, int first, int count);

}  // namespace stack
}  // namespace tfg
