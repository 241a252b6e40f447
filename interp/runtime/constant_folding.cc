// Constant folding: a node whose inputs are all constants runs once, with
// the kernel the registry gives it on the CPU, while the graph is optimized.
#include <algorithm>
#include <cmath>
#include <new>

#include "ops/core/control_flow.h"
#include "ops/core/device.h"
#include "interp/runtime/optimizer_passes.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"

namespace tfg {
namespace {

// Elements of `s`, or -1 when it is not fully defined or overflows.
int64_t KnownElements(const PartialShape& s) {
  if (!s.fully_defined()) return -1;
  int64_t n = 1;
  for (int64_t d : s.dims()) {
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

// The shape function run on the actual input values (which may tell more
// than the graph knew when the node was built) must predict a small output.
bool PredictedSmall(const Node& node, const std::vector<Tensor>& inputs, int64_t max_elements) {
  const OpDef& op = node.op();
  if (!op.shape_fn) return false;
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  for (const Tensor& t : inputs) {
    shapes.emplace_back(t.shape());
    values.push_back(&t);
  }
  ShapeContext c(&op, &node.attrs(), std::move(shapes), node.input_types(), std::move(values), node.num_outputs());
  if (!op.shape_fn(c).ok()) return false;
  for (const PartialShape& s : c.output_shapes()) {
    int64_t n = KnownElements(s);
    if (n < 0 || n > max_elements) return false;
  }
  return true;
}

// NaN or Inf in a float tensor. Such a value is left to be computed at run
// time, so --check-numerics names the op that made it, not a constant.
bool HasNonFinite(const Tensor& t) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DType::kF16: {
      // Exponent bits all set: Inf or NaN.
      const uint16_t* bits = static_cast<const uint16_t*>(t.raw_data());
      return std::any_of(bits, bits + n, [](uint16_t b) { return (b & 0x7C00) == 0x7C00; });
    }
    case DType::kF32: return std::any_of(t.data<float>(), t.data<float>() + n, [](float v) { return !std::isfinite(v); });
    case DType::kF64:
      return std::any_of(t.data<double>(), t.data<double>() + n, [](double v) { return !std::isfinite(v); });
    default: return false;
  }
}

// Runs the node's CPU kernel once; nullopt on any error.
std::optional<Tensor> RunKernel(const Node& node, const std::vector<Tensor>& inputs, Device* cpu) {
  auto def = OpRegistry::Global().FindKernel(node.op(), DeviceType::kCpu, node.attrs());
  if (!def.ok()) return std::nullopt;
  KernelConstruction c;
  c.op = &node.op();
  c.attrs = &node.attrs();
  c.input_types = node.input_types();
  c.output_types = node.output_types();
  c.node_name = node.name();
  c.span = node.span();
  c.device = cpu;
  auto kernel = (*def)->factory(c);
  // Async kernels wait on something outside the graph: never constant.
  if (!kernel.ok() || (*kernel)->IsAsync()) return std::nullopt;
  // Copies share the constants' buffers, which a kernel then never
  // overwrites (their reference count is above one).
  std::vector<Tensor> in = inputs;
  std::vector<Tensor> out(1);
  ResourceMgr no_resources;  // foldable ops are stateless
  StepInfo step;
  OpKernelContext ctx(&c, in.data(), static_cast<int>(in.size()), out.data(), 1, &no_resources, &step);
  // A constant too big to fold in memory is left to the run, which reports
  // it at the node's line.
  try {
    if (!(*kernel)->Compute(ctx).ok()) return std::nullopt;
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
  if (!out[0].IsInitialized() || out[0].dtype() != c.output_types[0]) return std::nullopt;
  return out[0];
}

}  // namespace

bool MayRewrite(const Node& node) {
  const OpDef& op = node.op();
  return !op.stateful && op.variables.empty() && !IsControlFlow(node) && node.control_inputs().empty() &&
         node.num_outputs() > 0;
}

std::optional<Tensor> FoldNode(const Node& node, const std::vector<Tensor>& inputs, int64_t max_elements,
                               Device* cpu) {
  if (node.num_outputs() != 1 || node.op_name() == "constant") return std::nullopt;
  if (!PredictedSmall(node, inputs, max_elements)) return std::nullopt;
  std::optional<Tensor> value = RunKernel(node, inputs, cpu);
  if (!value || value->num_elements() > max_elements || HasNonFinite(*value)) return std::nullopt;
  // The graph promised this shape to the node's consumers.
  if (!node.output_shapes()[0].IsCompatibleWith(value->shape())) return std::nullopt;
  return value;
}

}  // namespace tfg
