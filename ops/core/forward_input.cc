#include "ops/core/forward_input.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace tfg {

namespace {

std::atomic<int64_t> g_forwarded{0};

}  // namespace

bool InputForwardingEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("TFG_FORWARD_INPUTS");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

bool CanForwardInput(const OpKernelContext& ctx, int input, int output, const TensorShape& shape) {
  if (input < 0 || input >= ctx.num_inputs() || output < 0 || output >= ctx.num_outputs()) return false;
  const Tensor& in = ctx.input(input);
  // Strings own heap memory per element; they are never worth reusing.
  if (in.dtype() != ctx.output_type(output) || in.dtype() == DType::kString) return false;
  if (!in.RefCountIsOne() || in.num_elements() != shape.num_elements() || in.num_elements() == 0) return false;
  return in.buffer()->allocator() == ctx.allocator() && InputForwardingEnabled();
}

Result<Tensor*> ForwardInputOrAllocate(OpKernelContext& ctx, std::initializer_list<int> candidates, int output,
                                       const TensorShape& shape) {
  for (int input : candidates) {
    if (!CanForwardInput(ctx, input, output, shape)) continue;
    const Tensor& in = ctx.input(input);
    ctx.set_output(output, in.shape() == shape ? in : in.Reshaped(shape));
    g_forwarded.fetch_add(1, std::memory_order_relaxed);
    return &ctx.output(output);
  }
  return ctx.allocate_output(output, shape);
}

int64_t ForwardedInputCount() { return g_forwarded.load(std::memory_order_relaxed); }

}  // namespace tfg
